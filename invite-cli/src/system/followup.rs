//! One relation's follow-up: its input made, the program run on it in the jail, and its output
//! judged against the original's.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use invite::record::Outcome;
use invite::stats::{self, Plan};
use invite_sandbox::confine::exited;
use rand::SeedableRng;

use super::data::Data;
use super::expect::{Expect, FOLLOWUP, ORIGINAL};
use super::jail::Jail;
use super::original::describe;
use super::spec::{substitute, Output, Relation, Spec};
use super::step::Step;

/// What a follow-up came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// How it ended.
    pub outcome: Outcome,
    /// Why, unless it passed.
    pub detail: Option<String>,
    /// Wall time of the relation's follow-up work.
    pub duration: Duration,
}

/// What every follow-up of one invocation shares.
pub struct Shared<'a> {
    /// The specification.
    pub spec: &'a Spec,
    /// The original's input, read.
    pub input: Option<Data>,
    /// The original's output, read.
    pub output: Data,
    /// The original's output as it was written (for external comparisons).
    pub output_bytes: &'a [u8],
    /// The extra arguments given after `--`.
    pub args: &'a [String],
    /// The Landlock ABI the jails use.
    pub abi: i32,
    /// The invocation's seed: `{seed}` of the original and of deterministic follow-ups.
    pub seed: u64,
}

/// The seed of relation `index`'s randomness, from the invocation's.
pub fn relation_seed(seed: u64, index: usize) -> u64 {
    // SplitMix64's finaliser: neighbouring indices get unrelated streams.
    let mut z = seed.wrapping_add((index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `{seed}` of run `run` of side `side` (of `sides`) of a statistical relation: distinct
/// for every run of every side, all from the relation's seed.
fn run_seed(seed: u64, run: usize, sides: usize, side: usize) -> u64 {
    relation_seed(seed, run * sides + side)
}

/// Runs relation `rel` in `dir` (its own, empty) and judges it.
pub fn run(shared: &Shared<'_>, rel: &Relation, seed: u64, dir: &Path) -> Verdict {
    let started = Instant::now();
    let (outcome, detail) = match judge(shared, rel, seed, dir) {
        Ok(()) => (Outcome::Pass, None),
        Err((outcome, why)) => (outcome, Some(why)),
    };
    Verdict {
        outcome,
        detail,
        duration: started.elapsed(),
    }
}

type Judged = Result<(), (Outcome, String)>;

fn error(why: impl Into<String>) -> (Outcome, String) {
    (Outcome::Error, why.into())
}

fn judge(shared: &Shared<'_>, rel: &Relation, seed: u64, dir: &Path) -> Judged {
    let spec = shared.spec;
    let runner = Runner::new(spec, dir, shared.abi)?;
    if let Some(plan) = &rel.statistical {
        return judge_statistical(shared, rel, plan, seed, &runner, dir);
    }
    let ext = spec.format.extension();
    let input = follow_up_input(shared, rel, seed, &runner, dir)?;
    let (bytes, got_path) = invoke(
        spec,
        shared.args,
        &runner,
        dir,
        input.as_deref(),
        "the follow-up",
        shared.seed,
    )?;

    if let Expect::Run(cmd) = &rel.expect {
        let original = dir.join(format!("original.{ext}"));
        write(&original, shared.output_bytes)?;
        let argv: Vec<String> = cmd
            .iter()
            .map(|a| {
                a.replace(ORIGINAL, &original.to_string_lossy())
                    .replace(FOLLOWUP, &got_path.to_string_lossy())
            })
            .collect();
        let verdict = dir.join("expect.out");
        let ended = runner.run(&argv, None, &verdict, &dir.join("expect.err"))?;
        return match ended.code() {
            Some(0) => Ok(()),
            Some(1) => Err((
                Outcome::Fail,
                format!(
                    "`{}` said the outputs differ{}",
                    cmd.join(" "),
                    tail(&verdict)
                ),
            )),
            _ => Err(error(format!(
                "the comparison `{}` ended with {}{}",
                cmd.join(" "),
                describe(ended),
                tail(&dir.join("expect.err"))
            ))),
        };
    }
    let got = Data::parse(&bytes, spec.format, spec.output_header).map_err(|e| {
        error(format!(
            "the follow-up's output is not {:?}: {e}",
            spec.format
        ))
    })?;
    rel.expect
        .check(&shared.output, &got, spec.format, rel.tolerance)
        .map_err(|why| (Outcome::Fail, why))
}

/// A relation that holds in distribution: the follow-up (on its own transformed input) and the
/// original each run `plan.runs` times, every run with its own `{seed}`, and each number of the
/// output is compared across the runs by the plan's test.
fn judge_statistical(
    shared: &Shared<'_>,
    rel: &Relation,
    plan: &Plan,
    seed: u64,
    runner: &Runner,
    dir: &Path,
) -> Judged {
    let spec = shared.spec;
    let claim = rel.expect.claim().expect("checked when the spec was read");
    let sides = if plan.control { 3 } else { 2 };
    let mut samples: Vec<Vec<Vec<f64>>> = vec![Vec::with_capacity(plan.runs); sides];
    for run in 0..plan.runs {
        let seed_of = |side: usize| run_seed(seed, run, sides, side);
        let input = follow_up_input(shared, rel, seed_of(0), runner, dir)?;
        let what = format!("run {} of the follow-up", run + 1);
        let (bytes, _) = invoke(
            spec,
            shared.args,
            runner,
            dir,
            input.as_deref(),
            &what,
            seed_of(0),
        )?;
        samples[0].push(numbers(&bytes, spec, &what, None)?);
        for (side, sample) in samples.iter_mut().enumerate().skip(1) {
            let what = format!("run {} of the original", run + 1);
            let (bytes, _) = invoke(
                spec,
                shared.args,
                runner,
                dir,
                spec.input.as_deref(),
                &what,
                seed_of(side),
            )?;
            sample.push(numbers(&bytes, spec, &what, Some(&rel.expect))?);
        }
    }
    let cells = samples[0][0].len();
    if cells == 0 {
        return Err(error(
            "the follow-up's output holds no number for a statistical relation to compare",
        ));
    }
    for (side, sample) in samples.iter().enumerate() {
        if let Some((k, run)) = sample.iter().enumerate().find(|(_, r)| r.len() != cells) {
            let which = if side == 0 { "follow-up" } else { "original" };
            return Err(error(format!(
                "run {} of the {which} gave {} numbers where run 1 of the follow-up gave \
                 {cells}: a statistical relation compares outputs of one shape",
                k + 1,
                run.len()
            )));
        }
    }
    // Every number compared is a check of its own, sharing the level.
    let plan = Plan {
        checks: plan.checks * cells,
        ..*plan
    };
    let column =
        |side: usize, c: usize| -> Vec<f64> { samples[side].iter().map(|r| r[c]).collect() };
    let mut inconclusive = None;
    for c in 0..cells {
        let control = plan.control.then(|| column(2, c));
        let (outcome, detail) = stats::judge(
            &plan,
            claim,
            &column(0, c),
            &column(1, c),
            control.as_deref(),
            rel.tolerance,
        );
        let at = if cells > 1 {
            format!("number {} of {cells}: ", c + 1)
        } else {
            String::new()
        };
        match outcome {
            Outcome::Pass => {}
            Outcome::Inconclusive => {
                inconclusive.get_or_insert((outcome, format!("{at}{detail}")));
            }
            _ => {
                return Err((
                    outcome,
                    format!("{at}the follow-up against the original: {detail}"),
                ))
            }
        }
    }
    inconclusive.map_or(Ok(()), Err)
}

/// The numbers of one run's output, changed as the expectation says for a run of the original.
fn numbers(
    bytes: &[u8],
    spec: &Spec,
    what: &str,
    expect: Option<&Expect>,
) -> Result<Vec<f64>, (Outcome, String)> {
    let data = Data::parse(bytes, spec.format, spec.output_header).map_err(|e| {
        error(format!(
            "the output of {what} is not {:?}: {e}",
            spec.format
        ))
    })?;
    let data = match expect {
        Some(e) => e.expected(&data, spec.format).map_err(error)?,
        None => data,
    };
    Ok(data.numbers())
}

/// The follow-up's input: the original's, through the relation's steps (its path in `dir`).
fn follow_up_input(
    shared: &Shared<'_>,
    rel: &Relation,
    seed: u64,
    runner: &Runner,
    dir: &Path,
) -> Result<Option<PathBuf>, (Outcome, String)> {
    let spec = shared.spec;
    let ext = spec.format.extension();
    let input_path = dir.join(format!("input.{ext}"));
    if let Some(original) = &shared.input {
        let mut data = original.clone();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        for (k, step) in rel.transform.iter().enumerate() {
            let at = |e: String| error(format!("transform step {} ({step:?}): {e}", k + 1));
            match step {
                Step::Edit(edit) => edit.apply(&mut data, spec.format, &mut rng).map_err(at)?,
                Step::Run(argv) => {
                    let from = dir.join(format!("step{}.in", k + 1));
                    let to = dir.join(format!("step{}.out", k + 1));
                    write(&from, &data.write(spec.format))?;
                    let ended = runner.run(argv, Some(&from), &to, &dir.join("step.err"))?;
                    if !ended.success() {
                        return Err(at(format!(
                            "the command ended with {}{}",
                            describe(ended),
                            tail(&dir.join("step.err"))
                        )));
                    }
                    let bytes = read(&to)?;
                    data = Data::parse(&bytes, spec.format, spec.header).map_err(at)?;
                }
            }
        }
        write(&input_path, &data.write(spec.format))?;
    }
    Ok(shared.input.is_some().then_some(input_path))
}

/// Runs the spec's setup, command and tear-down in `dir` with `input` as `{input}` (and on
/// standard input when the spec says so); the output and where it was read from.
fn invoke(
    spec: &Spec,
    args: &[String],
    runner: &Runner,
    dir: &Path,
    input: Option<&Path>,
    what: &str,
    seed: u64,
) -> Result<(Vec<u8>, PathBuf), (Outcome, String)> {
    let out_path = dir.join(format!("output.{}", spec.format.extension()));
    // A run never reads what an earlier run in this directory left as its output.
    let _ = std::fs::remove_file(&out_path);
    let place = |argv: &[String]| substitute(argv, input, Some(&out_path), seed);
    let err_path = dir.join("stderr");
    if let Some(setup) = &spec.setup {
        let ended = runner.run(&place(setup), None, &dir.join("setup.out"), &err_path)?;
        if !ended.success() {
            return Err(error(format!(
                "setup ended with {}{}",
                describe(ended),
                tail(&err_path)
            )));
        }
    }
    let mut argv = spec.command.clone();
    argv.extend(args.iter().cloned());
    let stdin = if spec.stdin { input } else { None };
    let stdout_path = dir.join("stdout");
    // The tear-down runs whatever became of the command; the command's own verdict comes first.
    let ended = runner.run(&place(&argv), stdin, &stdout_path, &err_path);
    if let Some(teardown) = &spec.teardown {
        // A tear-down's own failure does not change the verdict; one that hangs does, as a
        // setup's would: it held the follow-up to its deadline, and the user must hear of it.
        let torn_down = runner.run(
            &place(teardown),
            None,
            &dir.join("teardown.out"),
            &dir.join("teardown.err"),
        );
        if let (Ok(_), Err(timeout @ (Outcome::Timeout, _))) = (&ended, torn_down) {
            return Err(timeout);
        }
    }
    let ended = ended?;
    if !ended.success() {
        return Err(error(format!(
            "{what} ended with {} where the original succeeded{}",
            describe(ended),
            tail(&err_path)
        )));
    }
    let got_path = match spec.output {
        Output::Stdout => stdout_path,
        Output::File(_) => out_path,
    };
    Ok((read(&got_path)?, got_path))
}

/// The original's standard output, made again: the original invocation is run once more, in the
/// jail in `dir`, on the untransformed input. The original itself writes to the caller's
/// standard output directly, so invite never stands between the program and its reader.
pub fn source(
    spec: &Spec,
    args: &[String],
    abi: i32,
    dir: &Path,
    seed: u64,
) -> Result<Vec<u8>, (Outcome, String)> {
    let runner = Runner::new(spec, dir, abi)?;
    let what = "the original, run again in the sandbox for its output,";
    invoke(spec, args, &runner, dir, spec.input.as_deref(), what, seed).map(|(bytes, _)| bytes)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), (Outcome, String)> {
    std::fs::write(path, bytes).map_err(|e| error(format!("{}: {e}", path.display())))
}

fn read(path: &Path) -> Result<Vec<u8>, (Outcome, String)> {
    std::fs::read(path).map_err(|e| error(format!("{}: {e}", path.display())))
}

/// The end of a file of messages, for a detail: `: <last lines>`, or nothing.
fn tail(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let t = text.trim();
    if t.is_empty() {
        return String::new();
    }
    let start = t.len().saturating_sub(400);
    let start = (start..t.len())
        .find(|&i| t.is_char_boundary(i))
        .unwrap_or(0);
    format!(": {}", &t[start..])
}

/// Runs commands in one jail, whose only writable directory is `dir`.
struct Runner {
    jail: Jail,
    tmp: PathBuf,
    timeout: Duration,
}

impl Runner {
    /// Makes `dir` (and its `tmp`, the commands' `TMPDIR`) and the jail.
    fn new(spec: &Spec, dir: &Path, abi: i32) -> Result<Runner, (Outcome, String)> {
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| error(format!("{}: {e}", tmp.display())))?;
        Ok(Runner {
            jail: Jail::new(spec, dir, abi).map_err(error)?,
            tmp,
            timeout: spec.timeout,
        })
    }

    /// Runs `argv` jailed, standard input from `stdin` (else /dev/null), output to files; a
    /// timeout is `Err` with outcome `Timeout`.
    fn run(
        &self,
        argv: &[String],
        stdin: Option<&Path>,
        stdout: &Path,
        stderr: &Path,
    ) -> Result<ExitStatus, (Outcome, String)> {
        let open = |p: &Path| File::create(p).map_err(|e| error(format!("{}: {e}", p.display())));
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .stdout(open(stdout)?)
            .stderr(open(stderr)?)
            .stdin(match stdin {
                Some(p) => {
                    Stdio::from(File::open(p).map_err(|e| error(format!("{}: {e}", p.display())))?)
                }
                None => Stdio::null(),
            });
        self.jail.confine(&mut cmd, &self.tmp);
        let mut child = cmd
            .spawn()
            .map_err(|e| error(format!("`{}` could not start: {e}", argv[0])))?;
        let deadline = Instant::now() + self.timeout;
        let mut pause = Duration::from_millis(1);
        let pid = child.id() as libc::pid_t;
        while !exited(pid) {
            if Instant::now() >= deadline {
                kill_session(pid);
                let _ = child.wait();
                return Err((
                    Outcome::Timeout,
                    format!(
                        "`{}` ran past the deadline of {} and was killed",
                        argv.join(" "),
                        humantime::format_duration(self.timeout)
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
        // Whatever it left running in its session goes with it; the session is killed while
        // its leader is still unreaped, so its id cannot have been reused.
        kill_session(pid);
        child
            .wait()
            .map_err(|e| error(format!("`{}`: {e}", argv[0])))
    }
}

/// Kills the session (and process group) a jailed command leads.
fn kill_session(pid: libc::pid_t) {
    // A negative pid names the process group the jailed command created with setsid; nothing
    // outside it is signalled.
    invite_sandbox::confine::kill(-pid);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_get_distinct_reproducible_seeds() {
        let a: Vec<u64> = (0..4).map(|i| relation_seed(42, i)).collect();
        assert_eq!(a, (0..4).map(|i| relation_seed(42, i)).collect::<Vec<_>>());
        let mut b = a.clone();
        b.dedup();
        assert_eq!(b.len(), 4);
        assert_ne!(relation_seed(42, 0), relation_seed(43, 0));
    }

    #[test]
    fn every_run_of_every_side_has_a_seed_of_its_own() {
        for sides in [2, 3] {
            let mut seen = std::collections::HashSet::new();
            for run in 0..30 {
                for side in 0..sides {
                    assert!(seen.insert(run_seed(42, run, sides, side)), "{run} {side}");
                }
            }
            assert!(!seen.contains(&42));
            assert_eq!(run_seed(42, 3, sides, 1), run_seed(42, 3, sides, 1));
        }
    }

    #[test]
    fn a_tail_is_the_end_of_the_file_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e");
        assert_eq!(tail(&p), "");
        std::fs::write(&p, "  \n").unwrap();
        assert_eq!(tail(&p), "");
        std::fs::write(&p, format!("{}end\n", "x".repeat(1000))).unwrap();
        let t = tail(&p);
        assert!(
            t.starts_with(": x") && t.ends_with("end") && t.len() == 402,
            "{t}"
        );
    }
}
