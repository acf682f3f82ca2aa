//! What `/metrics` says: calls per tool and outcome, and a latency histogram per tool, in the
//! Prometheus text format. Only the toolset's own tools are counted by name (a call to an
//! unknown tool adds to one counter), so the series are bounded by the toolset.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};

use crate::runtime::Audit;

/// The upper bounds of the latency histogram's buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Debug, Default)]
struct ToolStats {
    /// Calls by outcome (the audit's spelling).
    outcomes: BTreeMap<String, u64>,
    /// Calls that took at most each bound of [`BUCKETS`] (not cumulative).
    buckets: [u64; BUCKETS.len()],
    count: u64,
    seconds: f64,
}

/// The counters of a server's calls.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    tools: Mutex<Counters>,
}

#[derive(Debug, Default)]
struct Counters {
    by_tool: BTreeMap<String, ToolStats>,
    unknown: u64,
}

impl Metrics {
    /// Counts a call of one of the toolset's tools.
    pub(crate) fn record(&self, audit: &Audit) {
        let outcome = serde_json::to_value(audit.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "unknown".into());
        let seconds = audit.duration.as_secs_f64();
        let mut counters = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        let stats = counters.by_tool.entry(audit.tool.clone()).or_default();
        *stats.outcomes.entry(outcome).or_default() += 1;
        if let Some(i) = BUCKETS.iter().position(|b| seconds <= *b) {
            stats.buckets[i] += 1;
        }
        stats.count += 1;
        stats.seconds += seconds;
    }

    /// Counts a call of a tool the toolset does not have.
    pub(crate) fn unknown(&self) {
        let mut counters = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        counters.unknown += 1;
    }

    /// The Prometheus text exposition of the counters.
    pub(crate) fn render(&self) -> String {
        let counters = self.tools.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = String::new();
        out.push_str("# HELP tooldef_calls_total Calls by tool and outcome.\n");
        out.push_str("# TYPE tooldef_calls_total counter\n");
        for (tool, stats) in &counters.by_tool {
            for (outcome, n) in &stats.outcomes {
                let _ = writeln!(
                    out,
                    "tooldef_calls_total{{tool=\"{}\",outcome=\"{}\"}} {n}",
                    escape(tool),
                    escape(outcome)
                );
            }
        }
        out.push_str(
            "# HELP tooldef_unknown_tool_calls_total Calls of tools the server does not have.\n",
        );
        out.push_str("# TYPE tooldef_unknown_tool_calls_total counter\n");
        let _ = writeln!(out, "tooldef_unknown_tool_calls_total {}", counters.unknown);
        out.push_str("# HELP tooldef_call_duration_seconds How long calls took, by tool.\n");
        out.push_str("# TYPE tooldef_call_duration_seconds histogram\n");
        for (tool, stats) in &counters.by_tool {
            let tool = escape(tool);
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(stats.buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "tooldef_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "tooldef_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"+Inf\"}} {}",
                stats.count
            );
            let _ = writeln!(
                out,
                "tooldef_call_duration_seconds_sum{{tool=\"{tool}\"}} {}",
                stats.seconds
            );
            let _ = writeln!(
                out,
                "tooldef_call_duration_seconds_count{{tool=\"{tool}\"}} {}",
                stats.count
            );
        }
        out
    }
}

/// A label value with `\`, `"` and line breaks escaped, as the text format asks.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::Metrics;
    use crate::runtime::{Audit, CallOutcome};
    use std::time::Duration;

    #[test]
    fn calls_are_counted_by_tool_outcome_and_latency() {
        let metrics = Metrics::default();
        for (ms, outcome) in [
            (3, CallOutcome::Ok),
            (40, CallOutcome::Ok),
            (2, CallOutcome::Invalid),
        ] {
            let mut audit = Audit::new("echo");
            audit.duration = Duration::from_millis(ms);
            audit.outcome = outcome;
            metrics.record(&audit);
        }
        metrics.unknown();
        let text = metrics.render();
        assert!(
            text.contains("tooldef_calls_total{tool=\"echo\",outcome=\"ok\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("tooldef_calls_total{tool=\"echo\",outcome=\"invalid\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("tooldef_unknown_tool_calls_total 1\n"),
            "{text}"
        );
        assert!(text.contains("le=\"0.005\"} 2\n"), "{text}");
        assert!(text.contains("le=\"0.05\"} 3\n"), "{text}");
        assert!(text.contains("le=\"+Inf\"} 3\n"), "{text}");
        assert!(
            text.contains("tooldef_call_duration_seconds_count{tool=\"echo\"} 3\n"),
            "{text}"
        );
    }
}
