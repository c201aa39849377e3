//! Which instance of which service, at which version, wrote a record: what a fleet's report
//! groups by, and what metrics and events carry.
//!
//! The instance is named by `INVITE_INSTANCE`, else by `service.instance.id` in
//! `OTEL_RESOURCE_ATTRIBUTES` (as OpenTelemetry SDKs are told it), else by host, process id and
//! start time, which no other process shares. The service and the version come from
//! `invite.toml`, else from the executable's name and the instrumented crate's version.

use std::time::{Duration, SystemTime};

use crate::config::{check_label, Config};

/// The names every record carries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// This instance, unique in the fleet.
    pub instance: String,
    /// The program.
    pub service: String,
    /// The program's version (empty when nothing says it).
    pub version: String,
}

/// What identity is made from, gathered by the runtime (and by tests, made up).
pub struct Sources<'a> {
    /// Reads an environment variable.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    pub host: &'a str,
    pub pid: u32,
    /// When the process started invite.
    pub started: SystemTime,
    /// The executable's path.
    pub exe: &'a str,
    /// Each instrumented function's crate name and version, as its attribute saw them.
    pub crates: &'a [(&'a str, &'a str)],
}

/// The identity `config` and `sources` give, and a message for each name that was refused
/// (the next source is used in its place).
pub fn resolve(config: &Config, sources: &Sources) -> (Identity, Vec<String>) {
    let mut refused = Vec::new();
    let from_env = (sources.env)("INVITE_INSTANCE").filter(|v| match check_label(v) {
        Ok(()) => true,
        Err(e) => {
            refused.push(format!(
                "INVITE_INSTANCE is refused: {e}; the instance is named from \
                 OTEL_RESOURCE_ATTRIBUTES or the host instead"
            ));
            false
        }
    });
    let from_otel = || {
        let attrs = (sources.env)("OTEL_RESOURCE_ATTRIBUTES")?;
        let id = resource_attribute(&attrs, "service.instance.id")?;
        match check_label(&id) {
            Ok(()) => Some(id),
            Err(e) => {
                refused.push(format!(
                    "service.instance.id in OTEL_RESOURCE_ATTRIBUTES is refused: {e}; the \
                     instance is named from the host instead"
                ));
                None
            }
        }
    };
    let instance = from_env.or_else(from_otel).unwrap_or_else(|| {
        let secs = sources
            .started
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or(Duration::ZERO)
            .as_secs();
        format!("{}-{}-{secs}", sources.host, sources.pid)
    });
    let exe_name = std::path::Path::new(sources.exe)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| check_label(n).is_ok())
        .unwrap_or_else(|| "unknown".to_string());
    let service = config.service.clone().unwrap_or_else(|| exe_name.clone());
    let version = config
        .version
        .clone()
        .unwrap_or_else(|| crate_version(&exe_name, sources.crates));
    (
        Identity {
            instance,
            service,
            version,
        },
        refused,
    )
}

/// The version of the crate the executable is named after, if it is instrumented; else the
/// version most instrumented functions carry (the smallest of a tie), else none.
fn crate_version(exe_name: &str, crates: &[(&str, &str)]) -> String {
    let own = exe_name.replace('-', "_");
    if let Some((_, v)) = crates
        .iter()
        .find(|(name, v)| !v.is_empty() && name.replace('-', "_") == own)
    {
        return v.to_string();
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for (_, v) in crates.iter().filter(|(_, v)| !v.is_empty()) {
        *counts.entry(v).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    counts
        .into_iter()
        .find(|&(_, n)| n == most)
        .map_or(String::new(), |(v, _)| v.to_string())
}

/// The value of `key` in an OpenTelemetry resource attribute list (`k1=v1,k2=v2`, values
/// percent-encoded as the specification says).
fn resource_attribute(list: &str, key: &str) -> Option<String> {
    list.split(',').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k.trim() == key).then(|| percent_decode(v.trim()))
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_with(env: &[(&str, &str)], config: &Config) -> (Identity, Vec<String>) {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let read = move |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        resolve(
            config,
            &Sources {
                env: &read,
                host: "node-3",
                pid: 412,
                started: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
                exe: "/srv/bin/sim-server",
                crates: &[
                    ("sim_server", "2.4.1"),
                    ("numlib", "0.9.0"),
                    ("numlib", "0.9.0"),
                ],
            },
        )
    }

    #[test]
    fn the_instance_comes_from_invite_instance_then_otel_then_the_host() {
        let c = Config::default();
        let otel = (
            "OTEL_RESOURCE_ATTRIBUTES",
            "service.name=sim,service.instance.id=pod%2D7%20a",
        );
        let (id, said) = resolve_with(&[("INVITE_INSTANCE", "web-0"), otel], &c);
        assert_eq!(id.instance, "web-0");
        assert!(said.is_empty());
        assert_eq!(resolve_with(&[otel], &c).0.instance, "pod-7 a");
        assert_eq!(
            resolve_with(&[("OTEL_RESOURCE_ATTRIBUTES", "service.name=sim")], &c)
                .0
                .instance,
            "node-3-412-1700000000"
        );
        assert_eq!(resolve_with(&[], &c).0.instance, "node-3-412-1700000000");
    }

    #[test]
    fn an_instance_name_with_control_characters_is_refused_once_and_replaced() {
        let c = Config::default();
        let (id, said) = resolve_with(&[("INVITE_INSTANCE", "web\n0\u{1b}[2J")], &c);
        assert_eq!(id.instance, "node-3-412-1700000000");
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with("INVITE_INSTANCE is refused"),
            "{said:?}"
        );
        assert!(said[0].contains("control character"), "{said:?}");
        assert!(
            !said[0].contains('\n') && !said[0].contains('\u{1b}'),
            "{said:?}"
        );
        let (id, said) = resolve_with(
            &[
                ("INVITE_INSTANCE", ""),
                ("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id=a%0Ab"),
            ],
            &c,
        );
        assert_eq!(id.instance, "node-3-412-1700000000");
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[1].contains("OTEL_RESOURCE_ATTRIBUTES"), "{said:?}");
    }

    #[test]
    fn service_and_version_come_from_the_file_else_the_executable_and_its_crate() {
        let (id, _) = resolve_with(&[], &Config::default());
        assert_eq!(id.service, "sim-server");
        assert_eq!(id.version, "2.4.1", "the crate named like the executable");
        let set = Config {
            service: Some("simulation".into()),
            version: Some("2026.11".into()),
            ..Config::default()
        };
        let (id, _) = resolve_with(&[], &set);
        assert_eq!(
            (id.service.as_str(), id.version.as_str()),
            ("simulation", "2026.11")
        );
    }

    #[test]
    fn without_a_crate_named_like_the_executable_the_most_common_version_is_taken() {
        assert_eq!(
            crate_version("app", &[("a", "1.0.0"), ("b", "2.0.0"), ("c", "2.0.0")]),
            "2.0.0"
        );
        assert_eq!(
            crate_version("app", &[("a", "1.0.0"), ("b", "0.1.0")]),
            "0.1.0"
        );
        assert_eq!(crate_version("app", &[("a", ""), ("app", "")]), "");
        assert_eq!(
            crate_version(
                "my-app",
                &[("my_app", "3.0.0"), ("x", "1.0.0"), ("y", "1.0.0")]
            ),
            "3.0.0"
        );
    }

    #[test]
    fn resource_attributes_are_percent_decoded() {
        assert_eq!(
            resource_attribute(
                "a=1, service.instance.id = x%2Cy%3D ,b=2",
                "service.instance.id"
            ),
            Some("x,y=".to_string())
        );
        assert_eq!(resource_attribute("a=1", "b"), None);
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%41%42"), "AB");
    }
}
