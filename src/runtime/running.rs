//! How many calls run at once: a cap on the handlers running in all and per tool, so that a
//! burst of calls is answered "busy" at once rather than queued without bound.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// The most calls whose handlers run at once (`None`: no cap). A call past a cap is not run:
/// it gets a reply saying the server is busy, and its audit outcome is
/// [`super::CallOutcome::Busy`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConcurrencyLimits {
    /// Across every tool.
    pub total: Option<usize>,
    /// For each tool on its own.
    pub per_tool: Option<usize>,
}

/// The calls running now, against [`ConcurrencyLimits`].
#[derive(Debug, Default)]
pub(crate) struct Running {
    limits: ConcurrencyLimits,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_tool: HashMap<String, usize>,
}

/// A running call's place, given back when it is dropped (also when its call is dropped).
#[derive(Debug)]
pub(crate) struct Permit<'a> {
    /// `None` when nothing is capped: no count is kept then.
    running: Option<&'a Running>,
    tool: String,
}

impl Running {
    pub(crate) fn new(limits: ConcurrencyLimits) -> Running {
        Running {
            limits,
            counts: Mutex::new(Counts::default()),
        }
    }

    pub(crate) fn limits(&self) -> ConcurrencyLimits {
        self.limits
    }

    /// A place for a call of `tool`, or the message for the model when a cap is reached.
    pub(crate) fn enter(&self, tool: &str) -> Result<Permit<'_>, String> {
        // Without caps a call takes no lock and allocates nothing.
        if self.limits == ConcurrencyLimits::default() {
            return Ok(Permit {
                running: None,
                tool: String::new(),
            });
        }
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cap) = self.limits.total {
            if counts.total >= cap {
                return Err(format!(
                    "The server is busy: {cap} calls are running, its limit, so `{tool}` was not run. Call it again shortly."
                ));
            }
        }
        let of_tool = counts.per_tool.get(tool).copied().unwrap_or(0);
        if let Some(cap) = self.limits.per_tool {
            if of_tool >= cap {
                return Err(format!(
                    "The server is busy: {cap} calls of `{tool}` are running, its limit, so this one was not run. Call it again shortly."
                ));
            }
        }
        counts.total += 1;
        counts.per_tool.insert(tool.to_string(), of_tool + 1);
        Ok(Permit {
            running: Some(self),
            tool: tool.to_string(),
        })
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let Some(running) = self.running else {
            return;
        };
        let mut counts = running
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        counts.total = counts.total.saturating_sub(1);
        if let Some(n) = counts.per_tool.get_mut(&self.tool) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.per_tool.remove(&self.tool);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConcurrencyLimits, Running};

    #[test]
    fn caps_hold_and_places_come_back() {
        let running = Running::new(ConcurrencyLimits {
            total: Some(3),
            per_tool: Some(2),
        });
        let a1 = running.enter("a").expect("first");
        let a2 = running.enter("a").expect("second");
        assert!(running.enter("a").unwrap_err().contains("calls of `a`"));
        let b1 = running.enter("b").expect("another tool");
        assert!(running
            .enter("c")
            .unwrap_err()
            .contains("3 calls are running"));
        drop(a1);
        let a3 = running.enter("a").expect("a place came back");
        drop((a2, a3, b1));
        assert!(running.counts.lock().unwrap().per_tool.is_empty());
        assert_eq!(running.counts.lock().unwrap().total, 0);
        // No caps: anything runs.
        let open = Running::new(ConcurrencyLimits::default());
        let many: Vec<_> = (0..100).map(|_| open.enter("a").expect("no cap")).collect();
        assert_eq!(many.len(), 100);
    }
}
