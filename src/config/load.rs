//! Finding and reading the configuration: the environment names the file, which is read without
//! blocking and within a size cap, and its TOML is parsed into a [`Config`], every bad key
//! reported at once with its line, column and dotted path.

use std::path::{Path, PathBuf};

use super::{Config, ConfigError};

/// Where the configuration comes from, decided by the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// `INVITE=off` (or `0`, `false`, `no`).
    Disabled,
    /// No `$INVITE_CONFIG` and no `./invite.toml`, or a test binary without `$INVITE_CONFIG`.
    Absent,
    /// The file `$INVITE_CONFIG` or `./invite.toml` names.
    File(PathBuf),
}

impl Source {
    /// Reads `INVITE` and `INVITE_CONFIG`.
    pub fn from_env() -> Source {
        if let Ok(v) = std::env::var("INVITE") {
            if matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            ) {
                return Source::Disabled;
            }
        }
        match std::env::var_os("INVITE_CONFIG") {
            Some(p) if !p.is_empty() => Source::File(PathBuf::from(p)),
            // `cargo test` runs a package's tests in the package's directory, beside the
            // program's own `invite.toml`: a test binary reads it only when named, so that the
            // tests' records never join the program's log, nor its notices the tests' output.
            _ if std::env::current_exe().is_ok_and(|exe| is_test_binary(&exe)) => Source::Absent,
            _ => {
                let local = PathBuf::from("invite.toml");
                if local.is_file() {
                    Source::File(local)
                } else {
                    Source::Absent
                }
            }
        }
    }
}

/// Whether `exe` is a binary `cargo test` or `cargo bench` built: in a `deps` directory and
/// named with cargo's hash (`mycrate-0123456789abcdef`), or a doctest rustdoc built
/// (`rust_out`).
pub fn is_test_binary(exe: &Path) -> bool {
    let name = exe.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let in_deps = exe
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "deps");
    let hashed = name
        .rsplit_once('-')
        .is_some_and(|(_, hash)| hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()));
    (in_deps && hashed) || name == "rust_out"
}

/// The largest configuration file read (an `invite.toml` is a few hundred bytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// What a file that is not a regular one is, for messages (the configuration's, the log's).
pub fn describe_file_type(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        } else if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        } else if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

impl Config {
    /// Reads and validates one file. It is opened without blocking and must be a regular file
    /// of at most [`MAX_CONFIG_BYTES`]: a FIFO or a device named by mistake must not hang or
    /// flood the program at its first sampled call.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let fail = |message: String| ConfigError {
            file: path.to_path_buf(),
            line: 0,
            column: 0,
            key: String::new(),
            message,
            more: Vec::new(),
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(invite_linux)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(
            &mut options,
            invite_sandbox::fd::NONBLOCKING_OPEN_FLAGS,
        );
        // Without a non-blocking open, a FIFO would hold the open: look first.
        #[cfg(not(invite_linux))]
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(fail("it is not a regular file; name a file".to_string()));
        }
        let file = options.open(path).map_err(|e| {
            fail(format!(
                "cannot read the file: {e}; fix the path in INVITE_CONFIG or create it"
            ))
        })?;
        let meta = file
            .metadata()
            .map_err(|e| fail(format!("cannot read the file: {e}")))?;
        if !meta.is_file() {
            return Err(fail(format!(
                "it is {}, not a regular file; point INVITE_CONFIG at an invite.toml",
                describe_file_type(meta.file_type())
            )));
        }
        let mut text = String::new();
        let read = std::io::Read::read_to_string(
            &mut std::io::Read::take(&file, MAX_CONFIG_BYTES + 1),
            &mut text,
        );
        read.map_err(|e| fail(format!("cannot read the file: {e}")))?;
        if text.len() as u64 > MAX_CONFIG_BYTES {
            return Err(fail(format!(
                "the file is larger than {} KiB; is INVITE_CONFIG pointing at the right file?",
                MAX_CONFIG_BYTES >> 10
            )));
        }
        Config::from_toml(&text, path)
    }

    /// Parses and validates TOML text; `path` only names the file in errors. All the file's
    /// errors are reported together (the first, with the rest in [`ConfigError::more`]), except
    /// after a syntax error, which stops the reading.
    pub fn from_toml(text: &str, path: &Path) -> Result<Config, ConfigError> {
        // Each bad key's line is blanked (offsets kept) and the text read again, so that the
        // next error is found too.
        let mut text_now = text.to_string();
        let mut errors: Vec<ConfigError> = Vec::new();
        while errors.len() < MAX_ERRORS {
            let syntax_ok = text_now.parse::<toml::Table>().is_ok();
            if !syntax_ok && !errors.is_empty() {
                // Blanking a line of a value written over several lines broke the syntax:
                // what follows would be noise.
                break;
            }
            let error = match Config::from_toml_once(&text_now, path) {
                Ok(config) if errors.is_empty() => return Ok(config),
                Ok(_) => break,
                Err(e) => e,
            };
            let header = text_now
                .lines()
                .nth(error.line.wrapping_sub(1))
                .is_some_and(|l| l.trim_start().starts_with('['));
            // A syntax error, a table header or an error without a line (which `blank_line`
            // refuses) ends the list.
            let go_on = syntax_ok && !header;
            let line = error.line;
            errors.push(error);
            if !go_on || !blank_line(&mut text_now, line) {
                break;
            }
        }
        let mut first = errors.remove(0);
        first.more = errors;
        Err(first)
    }

    fn from_toml_once(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let syntax = |inner: toml::de::Error| {
            let (line, column) = inner.span().map_or((0, 0), |s| line_column(text, s.start));
            ConfigError {
                file: path.to_path_buf(),
                line,
                column,
                key: String::new(),
                message: without_value(inner.message().trim()),
                more: Vec::new(),
            }
        };
        let de = toml::de::Deserializer::parse(text).map_err(syntax)?;
        serde_path_to_error::deserialize::<_, Config>(de).map_err(|err| {
            let key = err.path().to_string();
            let inner = err.into_inner();
            let (line, column) = inner.span().map_or((0, 0), |s| line_column(text, s.start));
            ConfigError {
                file: path.to_path_buf(),
                line,
                column,
                key: if key == "." { String::new() } else { key },
                message: without_value(inner.message().trim()),
                more: Vec::new(),
            }
        })
    }
}

/// A parser's message with the value it quotes taken out: what the file holds under a key is
/// the operator's (a token pasted under the wrong key, a path), and the message goes to stderr
/// and into the log. The key, the place and the type expected say enough to fix it.
fn without_value(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix) {
            if let Some(at) = rest.rfind(", expected ") {
                let (got, expected) = (&rest[..at], &rest[at + 2..]);
                return format!("{expected}, got {}", kind_of(got));
            }
        }
    }
    // `unknown variant `…`, expected one of …`: the word is the value.
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        if let Some(at) = rest.find(", expected ") {
            return format!("{}, got another word", &rest[at + 2..]);
        }
    }
    message.to_string()
}

/// What kind of value serde's description of an unexpected value names, without the value.
fn kind_of(unexpected: &str) -> &'static str {
    const KINDS: [(&str, &str); 8] = [
        ("string", "a string"),
        ("integer", "a whole number"),
        ("floating point", "a number with a fraction"),
        ("boolean", "true or false"),
        ("sequence", "an array"),
        ("map", "a table"),
        ("char", "a character"),
        ("unit", "nothing"),
    ];
    KINDS
        .iter()
        .find(|(prefix, _)| unexpected.starts_with(prefix))
        .map_or("another value", |(_, kind)| kind)
}

/// The most errors one file reports.
const MAX_ERRORS: usize = 32;

/// Replaces the 1-based `line` of `text` with spaces; false if it has nothing to blank.
fn blank_line(text: &mut String, line: usize) -> bool {
    if line == 0 {
        return false;
    }
    let start: usize = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum();
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    if text[start..end].trim().is_empty() {
        return false;
    }
    let spaces = " ".repeat(end - start);
    text.replace_range(start..end, &spaces);
    true
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_binary_is_told_by_where_cargo_puts_it_and_its_name() {
        let test = |p: &str| is_test_binary(Path::new(p));
        assert!(test("/w/target/debug/deps/mycrate-0123456789abcdef"));
        assert!(test("/w/target/release/deps/scenarios-fedcba9876543210"));
        assert!(test("/tmp/rustdoctestXYZ/rust_out"));
        assert!(!test("/w/target/debug/mycrate"), "a program cargo run runs");
        assert!(!test("/w/target/debug/examples/quickstart"), "an example");
        assert!(
            !test("/opt/app/deps/server"),
            "a program in a directory named deps"
        );
        assert!(!test("/opt/app/deps/server-0123456789abcdeg"), "not a hash");
        assert!(
            !test("/w/target/debug/mycrate-0123456789abcdef"),
            "not in deps"
        );
        // This very binary is one.
        assert!(is_test_binary(&std::env::current_exe().unwrap()));
    }
    use crate::config::{OnFailure, SiteConfig};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml(text, Path::new("invite.toml"))
    }

    #[test]
    fn a_file_of_exactly_the_cap_is_read_and_one_byte_more_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("invite.toml");
        let mut text = "default_rho = 0.5\n".to_string();
        while (text.len() as u64) < MAX_CONFIG_BYTES - 1 {
            text.push('#');
        }
        text.push('\n');
        assert_eq!(text.len() as u64, MAX_CONFIG_BYTES);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(Config::from_file(&path).unwrap().default_rho, 0.5);
        text.push('\n');
        std::fs::write(&path, &text).unwrap();
        let e = Config::from_file(&path).unwrap_err();
        assert!(e.message.contains("larger than 1024 KiB"), "{}", e.message);
    }

    #[test]
    fn full_example_parses() {
        let c = parse(
            "enabled = true\ndefault_rho = 0.0\nmax_concurrent = 1\nmax_overhead = 0.05\n\
             timeout_ms = 2000\non_failure = \"notify\"\nlog = \"x.jsonl\"\nseed = 42\n\
             [functions.\"q::s::std_dev\"]\nrho = 0.25\ntolerance = 1e-9\n",
        )
        .unwrap();
        assert_eq!(c.on_failure, OnFailure::Notify);
        assert_eq!(c.seed, Some(42));
        assert_eq!(c.site("q::s::std_dev").rho, Some(0.25));
        assert_eq!(c.site("q::s::std_dev").tolerance, Some(1e-9));
        assert_eq!(c.site("other"), SiteConfig::default());
    }

    #[test]
    fn out_of_range_value_names_line_column_and_key() {
        let e = parse("enabled = true\ndefault_rho = 1.5\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15));
        assert_eq!(e.key, "default_rho");
        assert!(e.message.contains("0.0 to 1.0"), "{e}");
    }

    #[test]
    fn wrong_type_in_site_table_names_the_dotted_key() {
        let e = parse("[functions.\"a::b\"]\nrho = \"high\"\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(e.key, "functions.a::b.rho");
        assert!(e.message.ends_with(", got a string"), "{e}");
    }

    #[test]
    fn a_wrong_value_is_named_by_its_key_and_kind_and_never_repeated() {
        let secret = "hunter2-s3cr3t";
        for (text, key, got) in [
            (
                format!("default_rho = \"{secret}\""),
                "default_rho",
                "a string",
            ),
            (
                format!("on_failure = \"{secret}\""),
                "on_failure",
                "another word",
            ),
            (format!("sandbox = \"{secret}\""), "sandbox", "another word"),
            (
                format!("hide_runs = \"{secret}\""),
                "hide_runs",
                "another word",
            ),
            (
                format!("max_concurrent = [\"{secret}\"]"),
                "max_concurrent",
                "an array",
            ),
            (format!("seed = {{ a = \"{secret}\" }}"), "seed", "a table"),
            (
                format!("report_at_exit = \"{secret}\""),
                "report_at_exit",
                "a string",
            ),
            (format!("log = 5\n# {secret}"), "log", "a whole number"),
        ] {
            let e = parse(&format!("enabled = true\n{text}\n")).unwrap_err();
            let said = e.to_string();
            assert!(!said.contains(secret), "{said}");
            assert!(!said.contains("hunter2"), "{said}");
            assert_eq!(e.key, key, "{said}");
            assert_eq!(e.line, 2, "{said}");
            assert!(said.contains(&format!("got {got}")), "{said}");
            assert!(said.contains("expected"), "the type expected: {said}");
        }
    }

    #[test]
    fn a_description_of_a_value_keeps_only_its_kind() {
        assert_eq!(
            without_value("invalid type: string \"x, expected y\", expected a number"),
            "expected a number, got a string"
        );
        assert_eq!(
            without_value("invalid value: integer `-3`, expected u64"),
            "expected u64, got a whole number"
        );
        assert_eq!(
            without_value("unknown variant `zz`, expected `log` or `abort`"),
            "expected `log` or `abort`, got another word"
        );
        assert_eq!(without_value("unknown field `x`"), "unknown field `x`");
        assert_eq!(kind_of("floating point `1.5`"), "a number with a fraction");
        assert_eq!(kind_of("boolean `true`"), "true or false");
        assert_eq!(kind_of("char 'x'"), "a character");
        assert_eq!(kind_of("unit value"), "nothing");
        assert_eq!(kind_of("bytes"), "another value");
    }

    #[test]
    fn unknown_key_is_an_error() {
        let e = parse("enabled = true\nmax_concurent = 2\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("unknown field `max_concurent`"), "{e}");
    }

    #[test]
    fn syntax_error_has_a_place() {
        let e = parse("enabled = \n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.column > 1);
        assert!(e.to_string().starts_with("invite.toml:1:"), "{e}");
    }

    #[test]
    fn every_bad_key_is_reported_at_once_in_file_order() {
        let e = parse(
            "default_rho = 1.5\nmax_concurent = 2\nenabled = true\n\
             [functions.\"a::b\"]\nrho = \"high\"\ntimeout_ms = 5\n",
        )
        .unwrap_err();
        let found: Vec<(usize, &str)> = std::iter::once(&e)
            .chain(&e.more)
            .map(|e| (e.line, e.key.as_str()))
            .collect();
        assert_eq!(found[0], (1, "default_rho"));
        assert_eq!(found[1].0, 2);
        assert_eq!(found[2], (5, "functions.a::b.rho"));
        assert_eq!(found.len(), 3, "{e}");
        assert!(e.more.iter().all(|m| m.more.is_empty()));
        let text = e.to_string();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(
            text.lines().nth(1).unwrap().starts_with("  invite.toml:2:"),
            "{text}"
        );
        assert!(text.contains("unknown field `max_concurent`"), "{text}");
    }

    #[test]
    fn a_syntax_error_is_reported_alone() {
        let e = parse("default_rho = 1.5\nenabled = \n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.more.is_empty(), "{e}");
    }

    #[test]
    fn a_value_over_several_lines_ends_the_list_without_noise() {
        // Blanking the first line of the array would leave a broken file: the reading stops.
        let e = parse("max_concurrent = [\n1,\n2]\ndefault_rho = 7.0\n").unwrap_err();
        assert_eq!(e.key, "max_concurrent", "{e}");
        assert!(e.more.is_empty(), "{e}");
    }

    #[test]
    fn an_error_on_a_table_header_ends_the_list() {
        // Its keys would otherwise land in the table before it.
        let e = parse("functions = 3\ndefault_rho = 7.0\n").unwrap_err();
        assert_eq!(e.key, "functions", "{e}");
        let e = parse("[functions]\n\"a::b\" = 3\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e =
            parse("[functions.\"a::b\"]\nrho = 2.0\n[functions.\"c\"]\nrho = 3.0\n").unwrap_err();
        assert_eq!(e.more.len(), 1, "{e}");
    }

    #[test]
    fn blanking_keeps_every_offset_and_refuses_empty_lines() {
        let mut text = "a = 1\nbé = 2\n\nc = 3".to_string();
        assert!(blank_line(&mut text, 2));
        assert_eq!(text, "a = 1\n       \n\nc = 3");
        assert!(!blank_line(&mut text, 2));
        assert!(!blank_line(&mut text, 3));
        assert!(!blank_line(&mut text, 0));
        assert!(!blank_line(&mut text, 9));
        assert!(blank_line(&mut text, 4));
        assert_eq!(text.len(), "a = 1\nbé = 2\n\nc = 3".len());
    }

    #[test]
    fn a_file_full_of_errors_reports_the_first_thirty_two() {
        let text: String = (0..40).map(|i| format!("unknown_{i} = 1\n")).collect();
        let e = parse(&text).unwrap_err();
        assert_eq!(e.more.len() + 1, MAX_ERRORS, "{e}");
        assert_eq!(e.more.last().unwrap().line, MAX_ERRORS);
    }
}
