//! Records as log pipelines ship them: the line of invite's own log, or that line inside the
//! envelope of whatever carried it.
//!
//! - Docker's json-file driver: `{"log":"<line>\n","stream":"stdout","time":"..."}`.
//! - `logcli query --output=jsonl` (Loki): `{"labels":{...},"line":"<line>","timestamp":"..."}`.
//! - The OpenTelemetry Collector's file exporter: one `ExportLogsServiceRequest` a line, whose
//!   log records hold the record as their body's string or as the attribute `invite.record`
//!   (which is how a `tracing` event from invite carries it).
//! - `tracing-subscriber`'s JSON lines: the field `invite.record`, under `fields` or at the top.
//!
//! Envelopes may nest (a JSON subscriber's line inside Docker's). An envelope around anything
//! else is the program's other logging, shipped alongside: it is counted, not reported as bad.

use serde::Deserialize;

/// The attribute, or field, that holds the record in telemetry.
pub const RECORD_FIELD: &str = "invite.record";

/// How deep envelopes nest before the text inside is taken for what it is.
const MAX_DEPTH: usize = 4;

/// What a line holds.
#[derive(Debug, PartialEq, Eq)]
pub enum Shipped {
    /// The line is a record, or no envelope of a known kind: read as it is (and reported as
    /// bad if it is no record).
    Plain,
    /// An envelope: the records inside it (most often one), and how many log lines it carried
    /// that hold none.
    Wrapped {
        /// Each record's line.
        records: Vec<String>,
        /// Log lines of the program that are no record.
        other: u64,
    },
}

/// A JSON object that may be an envelope; every field it does not name is skipped unread.
#[derive(Deserialize)]
struct Envelope {
    /// A record's own field: the line is a record, not an envelope.
    #[serde(default)]
    kind: Option<serde::de::IgnoredAny>,
    /// Docker's.
    #[serde(default)]
    log: Option<String>,
    /// logcli's.
    #[serde(default)]
    line: Option<String>,
    /// The Collector's.
    #[serde(default, rename = "resourceLogs")]
    resource_logs: Option<Vec<ResourceLogs>>,
    /// A flattened `tracing` event's.
    #[serde(default, rename = "invite.record")]
    record: Option<String>,
    /// A `tracing` event's fields.
    #[serde(default)]
    fields: Option<Fields>,
}

#[derive(Deserialize)]
struct Fields {
    #[serde(default, rename = "invite.record")]
    record: Option<String>,
}

#[derive(Deserialize)]
struct ResourceLogs {
    #[serde(default, rename = "scopeLogs")]
    scope_logs: Vec<ScopeLogs>,
}

#[derive(Deserialize)]
struct ScopeLogs {
    #[serde(default, rename = "logRecords")]
    log_records: Vec<LogRecord>,
}

#[derive(Deserialize)]
struct LogRecord {
    #[serde(default)]
    body: Option<AnyValue>,
    #[serde(default)]
    attributes: Vec<KeyValue>,
}

#[derive(Deserialize)]
struct KeyValue {
    key: String,
    #[serde(default)]
    value: Option<AnyValue>,
}

/// OpenTelemetry's value; only a string can be a record.
#[derive(Deserialize)]
struct AnyValue {
    #[serde(default, rename = "stringValue")]
    string_value: Option<String>,
}

/// The texts an envelope carries, or `None` when the object is no envelope.
fn carried(e: Envelope) -> Option<Vec<Option<String>>> {
    if e.kind.is_some() {
        return None;
    }
    if let Some(r) = e.record.or(e.fields.and_then(|f| f.record)) {
        return Some(vec![Some(r)]);
    }
    if let Some(text) = e.log.or(e.line) {
        return Some(vec![Some(text)]);
    }
    let requests = e.resource_logs?;
    let mut texts = Vec::new();
    for record in requests
        .into_iter()
        .flat_map(|r| r.scope_logs)
        .flat_map(|s| s.log_records)
    {
        let attribute = record
            .attributes
            .into_iter()
            .find(|a| a.key == RECORD_FIELD)
            .and_then(|a| a.value?.string_value);
        texts.push(attribute.or(record.body.and_then(|b| b.string_value)));
    }
    Some(texts)
}

/// Whether the text inside an envelope is a record: invite writes `kind` first, so a damaged
/// record still starts so and is reported; any other JSON object is one if it has `kind` and
/// `v` (a record written by another serialiser).
fn is_record(text: &str) -> bool {
    #[derive(Deserialize)]
    struct Marks {
        kind: Option<serde::de::IgnoredAny>,
        v: Option<serde::de::IgnoredAny>,
    }
    text.starts_with("{\"kind\":")
        || serde_json::from_str::<Marks>(text).is_ok_and(|m| m.kind.is_some() && m.v.is_some())
}

/// Adds what the text inside an envelope holds.
fn inner(text: &str, depth: usize, records: &mut Vec<String>, other: &mut u64) {
    let text = text.trim();
    if is_record(text) {
        records.push(text.to_string());
        return;
    }
    if depth < MAX_DEPTH && text.starts_with('{') {
        if let Some(texts) = serde_json::from_str::<Envelope>(text)
            .ok()
            .and_then(carried)
        {
            for t in texts {
                match t {
                    Some(t) => inner(&t, depth + 1, records, other),
                    None => *other += 1,
                }
            }
            return;
        }
    }
    *other += 1;
}

/// What a line of a log holds. A record as invite writes it is recognised by its first bytes,
/// without parsing.
pub fn unwrap(line: &[u8]) -> Shipped {
    if line.starts_with(b"{\"kind\":") {
        return Shipped::Plain;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Shipped::Plain;
    };
    let texts = match serde_json::from_str::<Envelope>(text)
        .ok()
        .and_then(carried)
    {
        Some(t) => t,
        None => return Shipped::Plain,
    };
    let (mut records, mut other) = (Vec::new(), 0);
    for t in texts {
        match t {
            Some(t) => inner(&t, 1, &mut records, &mut other),
            None => other += 1,
        }
    }
    Shipped::Wrapped { records, other }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str =
        r#"{"kind":"stop","v":1,"time":"t","host":"h","pid":1,"drained":0,"killed":0}"#;

    fn json(s: &str) -> String {
        serde_json::to_string(s).unwrap()
    }

    fn records(line: &str) -> (Vec<String>, u64) {
        match unwrap(line.as_bytes()) {
            Shipped::Wrapped { records, other } => (records, other),
            Shipped::Plain => panic!("{line} read as plain"),
        }
    }

    #[test]
    fn a_record_is_plain_and_so_is_what_no_envelope_holds() {
        assert_eq!(unwrap(RECORD.as_bytes()), Shipped::Plain);
        // A record whose kind is not first is still a record, not an envelope.
        let late = r#"{"v":1,"log":"x","kind":"stop"}"#;
        assert_eq!(unwrap(late.as_bytes()), Shipped::Plain);
        for junk in ["not json", "[1, 2]", "{\"other\":1}", "{\"kind\":\"te"] {
            assert_eq!(unwrap(junk.as_bytes()), Shipped::Plain, "{junk}");
        }
        assert_eq!(unwrap(b"\xff{\"log\":\"x\"}"), Shipped::Plain);
    }

    #[test]
    fn docker_and_logcli_lines_carry_one_line_each() {
        let docker = format!(
            r#"{{"log":{},"stream":"stdout","time":"2026-11-22T10:00:00.1Z"}}"#,
            json(&format!("{RECORD}\n"))
        );
        assert_eq!(records(&docker), (vec![RECORD.to_string()], 0));
        let loki = format!(
            r#"{{"labels":{{"app":"a"}},"line":{},"timestamp":"2026-11-22T10:00:00Z"}}"#,
            json(RECORD)
        );
        assert_eq!(records(&loki), (vec![RECORD.to_string()], 0));
        // The program's other lines: text, or JSON that is no record.
        let said = r#"{"log":"listening on :8080\n","stream":"stderr","time":"t"}"#;
        assert_eq!(records(said), (vec![], 1));
        let logged = format!(
            r#"{{"log":{},"stream":"stdout"}}"#,
            json(r#"{"level":"info"}"#)
        );
        assert_eq!(records(&logged), (vec![], 1));
        // A damaged record inside is still a record, to be reported.
        let cut = format!(r#"{{"log":{}}}"#, json(&RECORD[..30]));
        assert_eq!(records(&cut), (vec![RECORD[..30].to_string()], 0));
    }

    #[test]
    fn a_collector_request_carries_records_in_bodies_and_attributes() {
        let attr =
            |k: &str, v: &str| format!(r#"{{"key":"{k}","value":{{"stringValue":{}}}}}"#, json(v));
        let log_record = |body: &str, attrs: &[String]| {
            format!(
                r#"{{"timeUnixNano":"1","body":{{"stringValue":{}}},"attributes":[{}]}}"#,
                json(body),
                attrs.join(",")
            )
        };
        let other = RECORD.replace("\"pid\":1", "\"pid\":2");
        let line = format!(
            r#"{{"resourceLogs":[{{"resource":{{"attributes":[]}},"scopeLogs":[{{"scope":{{}},"logRecords":[{},{},{}]}}]}}]}}"#,
            // A tracing event: its message in the body, the record in the attribute.
            log_record(
                "fail in app::f",
                &[attr("site", "app::f"), attr(RECORD_FIELD, RECORD)]
            ),
            // A log line collected from a file: the record is the body.
            log_record(&other, &[]),
            log_record("started", &[attr("level", "info")]),
        );
        assert_eq!(records(&line), (vec![RECORD.to_string(), other], 1));
        // A body that is no string (a map) holds no record.
        let map =
            r#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"kvlistValue":{}}}]}]}]}"#;
        assert_eq!(records(map), (vec![], 1));
    }

    #[test]
    fn tracing_json_lines_and_nested_envelopes_are_opened() {
        let fields = format!(
            r#"{{"timestamp":"t","level":"ERROR","fields":{{"message":"fail","invite.record":{}}},"target":"invite::record"}}"#,
            json(RECORD)
        );
        assert_eq!(records(&fields), (vec![RECORD.to_string()], 0));
        let flat = format!(r#"{{"message":"fail","invite.record":{}}}"#, json(RECORD));
        assert_eq!(records(&flat), (vec![RECORD.to_string()], 0));
        // The subscriber's line as Docker ships it.
        let docker = format!(
            r#"{{"log":{},"stream":"stdout"}}"#,
            json(&format!("{fields}\n"))
        );
        assert_eq!(records(&docker), (vec![RECORD.to_string()], 0));
    }
}
