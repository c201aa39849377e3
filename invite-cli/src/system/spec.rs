//! The specification of a whole program's relations: a TOML file naming the command, its input
//! and output, and the relations between the original invocation and its follow-ups.
//!
//! Every key is checked when the file is read, before the program runs, and every error names
//! the file, the place and the fix; an unknown key is an error, so that a misspelt one is never
//! silently ignored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use invite::stats::{self, Plan, Test};

use super::data::Format;
use super::expect::Expect;
use super::step::Step;

/// The placeholder replaced by the input file's path in `command` and `setup`/`teardown`.
pub const INPUT: &str = "{input}";
/// The placeholder replaced by the output file's path.
pub const OUTPUT: &str = "{output}";
/// The placeholder replaced by a seed for the program's own randomness: the invocation's seed
/// for the original and the deterministic follow-ups (so they draw the same numbers), a seed of
/// its own for every run of a statistical relation.
pub const SEED: &str = "{seed}";

/// The default tolerance of numeric comparisons (relative, as in `invite::mr`).
pub const DEFAULT_TOLERANCE: f64 = 1e-9;
/// The default deadline of one follow-up invocation.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest file a follow-up may write, by default (RLIMIT_FSIZE).
pub const DEFAULT_FILE_MB: u64 = 1024;

/// How follow-up invocations are confined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Landlock (file system, signals), a seccomp filter (sockets, IPC, keys, other processes),
    /// no capabilities and resource limits; follow-ups are not run where the kernel lacks them.
    Landlock,
    /// No confinement beyond a temporary directory and resource limits: only for programs the
    /// user trusts on a kernel without Landlock.
    None,
}

/// Where the program's result is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The program's standard output.
    Stdout,
    /// A file the program writes: the original's at this path, a follow-up's in its sandbox.
    File(PathBuf),
}

/// A whole-program specification, validated.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Where it was read from.
    pub path: PathBuf,
    /// The site name its records carry: `name`, else the file's stem.
    pub name: String,
    /// The command, with its placeholders.
    pub command: Vec<String>,
    /// The input file the relations transform, if any.
    pub input: Option<PathBuf>,
    /// The input is given on standard input instead of as `{input}`.
    pub stdin: bool,
    /// Where the result is read.
    pub output: Output,
    /// How input and output are read and written.
    pub format: Format,
    /// The first row of CSV/TSV input is a header, left in place.
    pub header: bool,
    /// The first row of CSV/TSV output is a header (by default, as the input's).
    pub output_header: bool,
    /// Run in each follow-up's sandbox before it (build-up), with the same placeholders.
    pub setup: Option<Vec<String>>,
    /// Run in each follow-up's sandbox after it (tear-down).
    pub teardown: Option<Vec<String>>,
    /// The deadline of each follow-up (and of each setup, tear-down and extension command).
    pub timeout: Duration,
    /// Follow-ups run at once, at most.
    pub parallel: usize,
    /// Address space of each follow-up, in MiB.
    pub memory_mb: Option<u64>,
    /// The largest file a follow-up may write, in MiB.
    pub file_mb: u64,
    /// Niceness added to follow-ups.
    pub nice: i32,
    /// How follow-ups are confined.
    pub sandbox: SandboxMode,
    /// The log, overriding invite.toml's.
    pub log: Option<String>,
    /// What a failure does, overriding invite.toml's.
    pub on_failure: Option<invite::config::OnFailure>,
    /// The seed of random transformations (`permute`); random when unset.
    pub seed: Option<u64>,
    /// The relations.
    pub relations: Vec<Relation>,
}

/// One relation of a specification.
#[derive(Clone, Debug)]
pub struct Relation {
    /// Its name, unique within the spec: the test name in the log.
    pub name: String,
    /// The steps that make the follow-up's input from the original's, in order.
    pub transform: Vec<Step>,
    /// What the follow-up's output must be, given the original's.
    pub expect: Expect,
    /// Relative tolerance of numeric comparisons.
    pub tolerance: f64,
    /// How a relation that holds in distribution is judged; `None` for one that holds run by run.
    pub statistical: Option<Plan>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: Option<String>,
    command: Vec<String>,
    input: Option<PathBuf>,
    #[serde(default)]
    stdin: bool,
    #[serde(default = "stdout")]
    output: String,
    format: Format,
    #[serde(default)]
    header: bool,
    output_header: Option<bool>,
    setup: Option<Vec<String>>,
    teardown: Option<Vec<String>>,
    timeout: Option<String>,
    parallel: Option<usize>,
    memory_mb: Option<u64>,
    file_mb: Option<u64>,
    nice: Option<i32>,
    #[serde(default = "landlock")]
    sandbox: SandboxMode,
    log: Option<String>,
    on_failure: Option<invite::config::OnFailure>,
    seed: Option<u64>,
    #[serde(default)]
    relation: Vec<RawRelation>,
}

fn stdout() -> String {
    "stdout".to_string()
}

fn landlock() -> SandboxMode {
    SandboxMode::Landlock
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRelation {
    name: String,
    #[serde(default)]
    transform: Vec<String>,
    #[serde(default = "equal")]
    expect: String,
    tolerance: Option<f64>,
    statistical: Option<RawStatistical>,
}

/// `statistical = { runs = 30, test = "welch", alpha = 0.0001, control = false }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatistical {
    runs: Option<usize>,
    test: Option<String>,
    alpha: Option<f64>,
    #[serde(default)]
    control: bool,
}

fn equal() -> String {
    "equal".to_string()
}

/// The largest specification read.
const MAX_SPEC_BYTES: u64 = 1 << 20;

impl Spec {
    /// Reads and validates a specification file.
    pub fn load(path: &Path) -> Result<Spec, String> {
        let shown = path.display();
        let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
        if !meta.is_file() || meta.len() > MAX_SPEC_BYTES {
            return Err(format!(
                "{shown}: not a specification (a regular TOML file of at most 1 MiB)"
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
        Spec::parse(&text, path)
    }

    /// Validates a specification's text; `path` names it in errors and resolves nothing.
    pub fn parse(text: &str, path: &Path) -> Result<Spec, String> {
        let shown = path.display();
        let raw: RawSpec = toml::from_str(text).map_err(|e| {
            let place = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!(":{line}:{column}")
                })
                .unwrap_or_default();
            format!("{shown}{place}: {}", e.message())
        })?;
        let bad = |what: String| format!("{shown}: {what}");
        if raw.command.is_empty() || raw.command[0].is_empty() {
            return Err(bad(
                "`command` is empty; name the program and its arguments, e.g. \
                 command = [\"sort\", \"-n\", \"{input}\"]"
                    .into(),
            ));
        }
        let mentions = |p: &str| raw.command.iter().any(|a| a.contains(p));
        if raw.stdin && raw.input.is_none() {
            return Err(bad(
                "`stdin = true` needs `input`, the file given on standard input".into(),
            ));
        }
        if let Some(input) = &raw.input {
            if !raw.stdin && !mentions(INPUT) {
                return Err(bad(format!(
                    "`command` never names {INPUT}, so follow-ups could not be given their \
                     transformed copy of `{}`; put \"{INPUT}\" where the program takes the file, \
                     or set `stdin = true`",
                    input.display()
                )));
            }
        } else if mentions(INPUT) {
            return Err(bad(format!(
                "`command` names {INPUT} but no `input` is set; add input = \"data.csv\""
            )));
        }
        let output = match raw.output.as_str() {
            "stdout" => {
                if mentions(OUTPUT) {
                    return Err(bad(format!(
                        "`command` names {OUTPUT} but `output` is stdout; set output to the \
                         file the program writes"
                    )));
                }
                Output::Stdout
            }
            "" => {
                return Err(bad(
                    "`output` is empty; use \"stdout\" or a file path".into()
                ))
            }
            file => {
                if !mentions(OUTPUT) {
                    return Err(bad(format!(
                        "`output` is the file `{file}`, but `command` never names {OUTPUT}; \
                         put \"{OUTPUT}\" where the program takes its output path, so that \
                         follow-ups write in their sandbox and never over `{file}`"
                    )));
                }
                Output::File(PathBuf::from(file))
            }
        };
        if raw.relation.is_empty() {
            return Err(bad(
                "no [[relation]]; add one, e.g.\n[[relation]]\nname = \"rows permuted\"\n\
                 transform = [\"permute\"]\nexpect = \"equal\""
                    .into(),
            ));
        }
        if raw.input.is_none() {
            if let Some(r) = raw.relation.iter().find(|r| !r.transform.is_empty()) {
                return Err(bad(format!(
                    "relation `{}` transforms the input, but no `input` is set",
                    r.name
                )));
            }
        }
        let timeout = match &raw.timeout {
            None => DEFAULT_TIMEOUT,
            Some(t) => humantime::parse_duration(t)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    bad(format!(
                        "`timeout = \"{t}\"` is not a duration; write e.g. \"30s\" or \"2m\""
                    ))
                })?,
        };
        if raw.parallel == Some(0) {
            return Err(bad(
                "`parallel = 0` would run no follow-up; use 1 or more".into()
            ));
        }
        if let Some(n) = raw.nice.filter(|n| !(0..=19).contains(n)) {
            return Err(bad(format!("`nice = {n}`: use 0 to 19")));
        }
        if raw.memory_mb == Some(0) || raw.file_mb == Some(0) {
            return Err(bad(
                "`memory_mb` and `file_mb` must be at least 1 (leave them out for the defaults)"
                    .into(),
            ));
        }
        // The statistical relations share the spec's false-alarm rate (and, once the outputs
        // are read, with every number compared).
        let checks = raw
            .relation
            .iter()
            .filter(|r| r.statistical.is_some())
            .count();
        let mut relations = Vec::with_capacity(raw.relation.len());
        for r in raw.relation {
            let name = r.name.trim().to_string();
            if name.is_empty() {
                return Err(bad("a [[relation]] has an empty `name`".into()));
            }
            if relations.iter().any(|o: &Relation| o.name == name) {
                return Err(bad(format!(
                    "two relations are named `{name}`; names must be unique"
                )));
            }
            let at = |what: String| bad(format!("relation `{name}`: {what}"));
            let transform = r
                .transform
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    Step::parse(s, raw.format)
                        .map_err(|e| at(format!("transform step {} `{s}`: {e}", i + 1)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let expect = Expect::parse(&r.expect, raw.format)
                .map_err(|e| at(format!("expect `{}`: {e}", r.expect)))?;
            let tolerance = r.tolerance.unwrap_or(DEFAULT_TOLERANCE);
            if !(tolerance.is_finite() && tolerance >= 0.0) {
                return Err(at(format!(
                    "tolerance {tolerance} is not a number at least 0; 1e-9 is the default"
                )));
            }
            let statistical = match r.statistical {
                None => None,
                Some(st) => Some(statistical_plan(st, &expect, checks).map_err(at)?),
            };
            relations.push(Relation {
                name,
                transform,
                expect,
                tolerance,
                statistical,
            });
        }
        let name = raw
            .name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                path.file_stem()
                    .map_or("system".into(), |s| s.to_string_lossy().into_owned())
            });
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Spec {
            path: path.to_path_buf(),
            name,
            command: raw.command,
            input: raw.input,
            stdin: raw.stdin,
            output,
            format: raw.format,
            header: raw.header,
            output_header: raw.output_header.unwrap_or(raw.header),
            setup: raw.setup.filter(|s| !s.is_empty()),
            teardown: raw.teardown.filter(|s| !s.is_empty()),
            timeout,
            parallel: raw.parallel.unwrap_or(cpus.saturating_sub(1).max(1)),
            memory_mb: raw.memory_mb,
            file_mb: raw.file_mb.unwrap_or(DEFAULT_FILE_MB),
            nice: raw.nice.unwrap_or(10),
            sandbox: raw.sandbox,
            log: raw.log,
            on_failure: raw.on_failure,
            seed: raw.seed,
            relations,
        })
    }
}

/// The plan of a statistical relation, refused when its expectation is not one a test can judge.
fn statistical_plan(st: RawStatistical, expect: &Expect, checks: usize) -> Result<Plan, String> {
    let plan = Plan {
        test: match &st.test {
            None => Test::Welch,
            Some(name) => Test::parse(name).map_err(|e| format!("statistical: {e}"))?,
        },
        runs: st.runs.unwrap_or(stats::DEFAULT_RUNS),
        alpha: st.alpha.unwrap_or(stats::DEFAULT_ALPHA),
        checks,
        control: st.control,
    };
    plan.validate().map_err(|e| format!("statistical: {e}"))?;
    let claim = expect.claim().ok_or_else(|| {
        "a statistical relation compares the numbers of many runs, so `expect` must be \
         `equal`, a deterministic step such as `multiply 10`, or `less`, `greater`, \
         `less or equal`, `greater or equal`"
            .to_string()
    })?;
    plan.supports(claim)
        .map_err(|e| format!("statistical: {e}"))?;
    Ok(plan)
}

/// `args` with every placeholder replaced.
pub fn substitute(
    args: &[String],
    input: Option<&Path>,
    output: Option<&Path>,
    seed: u64,
) -> Vec<String> {
    args.iter()
        .map(|a| {
            let mut a = a.replace(SEED, &seed.to_string());
            if let Some(i) = input {
                a = a.replace(INPUT, &i.to_string_lossy());
            }
            if let Some(o) = output {
                a = a.replace(OUTPUT, &o.to_string_lossy());
            }
            a
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Spec, String> {
        Spec::parse(text, Path::new("s.toml"))
    }

    const GOOD: &str = r#"
command = ["sort", "-n", "{input}"]
input = "data.txt"
format = "numbers"
[[relation]]
name = "permuted"
transform = ["permute"]
expect = "equal"
"#;

    #[test]
    fn a_good_spec_reads_with_its_defaults() {
        let s = parse(GOOD).unwrap();
        assert_eq!(s.name, "s");
        assert_eq!(s.output, Output::Stdout);
        assert_eq!(s.timeout, DEFAULT_TIMEOUT);
        assert_eq!(s.file_mb, DEFAULT_FILE_MB);
        assert_eq!(s.nice, 10);
        assert_eq!(s.sandbox, SandboxMode::Landlock);
        assert_eq!(s.relations.len(), 1);
        assert_eq!(s.relations[0].tolerance, DEFAULT_TOLERANCE);
        assert!(!s.header && !s.output_header);
        let both = parse(&GOOD.replace("format", "header = true\nformat")).unwrap();
        assert!(both.header && both.output_header);
        let input_only =
            parse(&GOOD.replace("format", "header = true\noutput_header = false\nformat")).unwrap();
        assert!(input_only.header && !input_only.output_header);
        // CPUs − 1, at least 1: the original's CPU is left to the caller.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(s.parallel, (cpus - 1).max(1));
    }

    #[test]
    fn every_bad_key_is_named_with_its_fix() {
        let cases: &[(&str, &str)] = &[
            ("command = []\nformat = \"lines\"\n", "`command` is empty"),
            (
                "command = [\"cat\"]\ninput = \"x\"\nformat = \"lines\"\n[[relation]]\nname=\"a\"\n",
                "never names {input}",
            ),
            (
                "command = [\"cat\", \"{input}\"]\nformat = \"lines\"\n",
                "no `input` is set",
            ),
            (
                "command = [\"cat\"]\nstdin = true\nformat = \"lines\"\n",
                "`stdin = true` needs `input`",
            ),
            (
                "command = [\"cat\"]\noutput = \"o.txt\"\nformat = \"lines\"\n[[relation]]\nname=\"a\"\n",
                "never names {output}",
            ),
            (
                "command = [\"cat\", \"{output}\"]\nformat = \"lines\"\n[[relation]]\nname=\"a\"\n",
                "`output` is stdout",
            ),
            ("command = [\"cat\"]\nformat = \"lines\"\n", "no [[relation]]"),
            ("command = [\"cat\"]\nformat = \"yaml\"\n", "unknown variant"),
            (
                "command = [\"cat\"]\nformat = \"lines\"\nfrobnicate = 1\n",
                "unknown field `frobnicate`",
            ),
            (
                "command = [\"cat\"]\nformat = \"lines\"\ntimeout = \"soon\"\n[[relation]]\nname=\"a\"\n",
                "not a duration",
            ),
            (
                "command = [\"cat\"]\nformat = \"lines\"\nparallel = 0\n[[relation]]\nname=\"a\"\n",
                "`parallel = 0`",
            ),
            (
                "command = [\"cat\"]\nformat = \"lines\"\nnice = 20\n[[relation]]\nname=\"a\"\n",
                "`nice = 20`",
            ),
            (
                "command = [\"cat\"]\nformat = \"lines\"\n[[relation]]\nname=\"a\"\n[[relation]]\nname=\"a\"\n",
                "two relations are named `a`",
            ),
            (
                "command = [\"cat\"]\nformat = \"lines\"\n[[relation]]\nname=\"a\"\ntransform=[\"permute\"]\n",
                "transforms the input, but no `input`",
            ),
            (
                "command = [\"cat\", \"{input}\"]\ninput=\"x\"\nformat = \"lines\"\n[[relation]]\nname=\"a\"\ntransform=[\"shuffle\"]\n",
                "relation `a`: transform step 1 `shuffle`",
            ),
            (
                "command = [\"cat\", \"{input}\"]\ninput=\"x\"\nformat = \"lines\"\n[[relation]]\nname=\"a\"\nexpect=\"similar\"\n",
                "relation `a`: expect `similar`",
            ),
            (
                "command = [\"cat\", \"{input}\"]\ninput=\"x\"\nformat = \"lines\"\n[[relation]]\nname=\"a\"\ntolerance=-1.0\n",
                "tolerance -1",
            ),
        ];
        for (text, want) in cases {
            let err = parse(text).expect_err(text);
            assert!(err.starts_with("s.toml"), "{err}");
            assert!(err.contains(want), "{text}\n=> {err}\nwanted {want}");
        }
    }

    #[test]
    fn values_at_their_bounds_are_taken_and_those_past_them_refused() {
        let with = |extra: &str| parse(&GOOD.replace("format", &format!("{extra}\nformat")));
        for refused in [
            "timeout = \"0s\"",
            "memory_mb = 0",
            "file_mb = 0",
            "nice = -1",
        ] {
            assert!(with(refused).is_err(), "{refused} was taken");
        }
        let s = with("timeout = \"1ms\"\nmemory_mb = 1\nfile_mb = 1\nnice = 19").unwrap();
        assert_eq!(
            (s.timeout, s.memory_mb, s.file_mb, s.nice),
            (Duration::from_millis(1), Some(1), 1, 19)
        );
        assert_eq!(with("nice = 0").unwrap().nice, 0);
        // A blank name is no name: the file's stem names the spec.
        assert_eq!(with("name = \"  \"").unwrap().name, "s");
        assert_eq!(with("name = \"sorter\"").unwrap().name, "sorter");
        // An empty setup or tear-down is none at all.
        let s = with("setup = []\nteardown = []").unwrap();
        assert!(s.setup.is_none() && s.teardown.is_none());
        let s = with("setup = [\"true\"]\nteardown = [\"false\"]").unwrap();
        assert_eq!(s.setup, Some(vec!["true".to_string()]));
        assert_eq!(s.teardown, Some(vec!["false".to_string()]));
    }

    #[test]
    fn a_statistical_relation_carries_its_plan_shared_by_every_statistical_check() {
        let spec = GOOD.to_string()
            + "statistical = { runs = 12, test = \"mann-whitney\", alpha = 0.01, control = true }\n"
            + "[[relation]]\nname = \"again\"\nexpect = \"equal\"\nstatistical = {}\n";
        let s = parse(&spec).unwrap();
        assert_eq!(
            s.relations[0].statistical,
            Some(Plan {
                test: Test::MannWhitney,
                runs: 12,
                alpha: 0.01,
                checks: 2,
                control: true,
            })
        );
        assert_eq!(
            s.relations[1].statistical,
            Some(Plan {
                checks: 2,
                ..Plan::default()
            })
        );
        let err = parse(&GOOD.replace(
            "expect = \"equal\"",
            "expect = \"equal\"\nstatistical = { runs = 1 }",
        ))
        .unwrap_err();
        assert!(err.contains("relation `permuted`: statistical:"), "{err}");
    }

    #[test]
    fn only_a_regular_file_of_at_most_a_mebibyte_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let err = Spec::load(dir.path()).unwrap_err();
        assert!(err.contains("not a specification"), "{err}");
        let spec = dir.path().join("sort.toml");
        std::fs::write(&spec, GOOD).unwrap();
        assert_eq!(Spec::load(&spec).unwrap().name, "sort");
        // Padded with a comment to the bound, still read; one byte more, refused unread.
        let pad = MAX_SPEC_BYTES as usize - GOOD.len() - 2;
        std::fs::write(&spec, format!("{GOOD}#{}\n", "x".repeat(pad))).unwrap();
        assert_eq!(std::fs::metadata(&spec).unwrap().len(), MAX_SPEC_BYTES);
        assert!(Spec::load(&spec).is_ok());
        std::fs::write(&spec, format!("{GOOD}#{}\n", "x".repeat(pad + 1))).unwrap();
        let err = Spec::load(&spec).unwrap_err();
        assert!(err.contains("at most 1 MiB"), "{err}");
        let err = Spec::load(&dir.path().join("missing.toml")).unwrap_err();
        assert!(err.contains("missing.toml"), "{err}");
    }

    #[test]
    fn a_syntax_error_names_line_and_column() {
        let err =
            parse("command = [\"cat\"]\nformat = \"lines\"\nparallel = \"two\"\n").unwrap_err();
        assert!(err.starts_with("s.toml:3:12:"), "{err}");
    }

    #[test]
    fn placeholders_are_replaced_everywhere_they_appear() {
        let args = vec![
            "--in={input}".to_string(),
            "{output}".into(),
            "x".into(),
            "--seed={seed}".into(),
        ];
        let got = substitute(&args, Some(Path::new("/a")), Some(Path::new("/b")), 7);
        assert_eq!(got, ["--in=/a", "/b", "x", "--seed=7"]);
        let kept = substitute(&args, None, None, 7);
        assert_eq!(kept[..3], args[..3]);
        // A path naming a placeholder is not read as one.
        let odd = substitute(&args, Some(Path::new("/{seed}")), None, 7);
        assert_eq!(odd[0], "--in=/{seed}");
    }
}
