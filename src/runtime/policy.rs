//! Retry waits, and racing a run against its timeout and its cancellation.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::task::Poll;
use std::time::Duration;

use crate::model::{Retry, Wait};

use super::cancel::CancelToken;
use super::clock::{Clock, Sleep};
use super::Failure;

/// The wait after failed attempt number `attempt` (1-based) before the next one: fixed, `base ×
/// attempt` (linear) or `base × 2^(attempt−1)` (exponential) seconds. A wait too long to be
/// represented is [`Duration::MAX`]; a negative or not-a-number one is zero.
pub(crate) fn wait_before(retry: &Retry, attempt: u32) -> Duration {
    let seconds = match retry.wait {
        Wait::Fixed(s) => s,
        Wait::Linear => retry.base * f64::from(attempt),
        Wait::Exponential => retry.base * 2f64.powi(attempt.saturating_sub(1).min(1100) as i32),
    };
    if seconds.is_nan() || seconds <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
}

/// The `@retry` of `retries` (in source order) that retries `failure`, with its index: the first
/// whose `on` matches the failure's kind, if it has retries left (`retried`, per policy). `None`
/// for a final error, when no policy matches, or when the one that matches is spent: a later
/// policy never takes over from an earlier one.
pub(crate) fn retry_for<'a>(
    retries: &'a [Retry],
    failure: &Failure,
    retried: &[u32],
) -> Option<(usize, &'a Retry)> {
    if failure.is_fatal() {
        return None;
    }
    let kind = failure.kind();
    let (i, retry) = retries.iter().enumerate().find(|(_, r)| r.matches(kind))?;
    (retried.get(i).copied().unwrap_or(u32::MAX) < retry.times).then_some((i, retry))
}

/// How a race ended.
pub(crate) enum Raced<T> {
    /// The work finished first.
    Done(T),
    /// The timeout passed first.
    TimedOut,
    /// The token was cancelled first.
    Cancelled,
}

/// Runs `work` until it finishes, the timeout passes on the clock, or `cancel` is cancelled,
/// whichever comes first; the others are dropped. A cancellation is looked at first, then the
/// work, then the timeout: work that is ready wins over a timeout that is due. The timeout's
/// wait starts when the work is first found pending, so work done at once asks the clock for no
/// wait.
pub(crate) async fn race<T>(
    work: impl Future<Output = T>,
    timeout: Option<(&dyn Clock, Duration)>,
    cancel: Option<&CancelToken>,
) -> Raced<T> {
    let mut work = pin!(work);
    let mut sleep: Option<Sleep> = None;
    let mut cancelled = cancel.map(CancelToken::cancelled);
    poll_fn(|cx| {
        if let Some(c) = cancelled.as_mut() {
            if Pin::new(c).poll(cx).is_ready() {
                return Poll::Ready(Raced::Cancelled);
            }
        }
        if let Poll::Ready(value) = work.as_mut().poll(cx) {
            return Poll::Ready(Raced::Done(value));
        }
        if let Some((clock, after)) = timeout {
            let wait = sleep.get_or_insert_with(|| clock.sleep(after));
            if wait.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Raced::TimedOut);
            }
        }
        Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retry(wait: Wait, base: f64) -> Retry {
        Retry {
            times: 3,
            on: Vec::new(),
            wait,
            base,
        }
    }

    fn waits(r: &Retry) -> Vec<f64> {
        (1..=3).map(|a| wait_before(r, a).as_secs_f64()).collect()
    }

    #[test]
    fn waits_follow_the_documented_formulas() {
        assert_eq!(waits(&retry(Wait::Fixed(0.25), 9.0)), [0.25, 0.25, 0.25]);
        assert_eq!(waits(&retry(Wait::Linear, 0.5)), [0.5, 1.0, 1.5]);
        assert_eq!(waits(&retry(Wait::Exponential, 0.5)), [0.5, 1.0, 2.0]);
        assert_eq!(waits(&retry(Wait::Fixed(0.0), 1.0)), [0.0, 0.0, 0.0]);
    }

    #[test]
    fn waits_out_of_range_are_clamped() {
        let huge = retry(Wait::Exponential, 1.0);
        assert_eq!(wait_before(&huge, u32::MAX), Duration::MAX);
        assert_eq!(
            wait_before(&retry(Wait::Fixed(-1.0), 1.0), 1),
            Duration::ZERO
        );
        assert_eq!(
            wait_before(&retry(Wait::Fixed(f64::NAN), 1.0), 1),
            Duration::ZERO
        );
        assert_eq!(
            wait_before(&retry(Wait::Fixed(f64::INFINITY), 1.0), 1),
            Duration::MAX
        );
    }
}
