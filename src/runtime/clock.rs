//! The clock the runtime reads and waits on: injectable, so that retries and timeouts are
//! tested without real waits.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Once, OnceLock, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// A wait: a future that completes when the time has passed.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// What the runtime knows of time: the present, and a way to wait.
///
/// The runtime measures each call's duration with [`Clock::now`], waits between retries with
/// [`Clock::sleep`], and races each attempt against a [`Clock::sleep`] of the timeout.
pub trait Clock: Send + Sync + 'static {
    /// The present.
    fn now(&self) -> Instant;
    /// A future that completes once `duration` has passed.
    fn sleep(&self, duration: Duration) -> Sleep;
}

/// The real clock. Its waits need no async runtime: one timer thread, started at the first
/// wait, wakes every wait when it is due.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        Box::pin(TimerSleep {
            // A wait too long to be represented never ends.
            deadline: Instant::now().checked_add(duration),
            key: None,
        })
    }
}

/// A clock for tests: every wait is recorded and completes at once, moving the clock's time
/// forward by its length. Clones share their time and their record.
#[derive(Clone, Debug)]
pub struct FakeClock {
    state: Arc<Mutex<Fake>>,
}

#[derive(Debug)]
struct Fake {
    start: Instant,
    elapsed: Duration,
    waits: Vec<Duration>,
}

impl FakeClock {
    /// A clock at an arbitrary start, with no waits recorded.
    pub fn new() -> FakeClock {
        FakeClock {
            state: Arc::new(Mutex::new(Fake {
                start: Instant::now(),
                elapsed: Duration::ZERO,
                waits: Vec::new(),
            })),
        }
    }

    fn state(&self) -> MutexGuard<'_, Fake> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every wait asked for so far, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.state().waits.clone()
    }

    /// How far the clock has moved since it was made.
    pub fn elapsed(&self) -> Duration {
        self.state().elapsed
    }

    /// Moves the clock forward without recording a wait (time a handler "takes").
    pub fn advance(&self, duration: Duration) {
        let mut state = self.state();
        state.elapsed = state.elapsed.saturating_add(duration);
    }
}

impl Default for FakeClock {
    fn default() -> Self {
        FakeClock::new()
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Instant {
        let state = self.state();
        state.start + state.elapsed
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        let mut state = self.state();
        state.waits.push(duration);
        state.elapsed = state.elapsed.saturating_add(duration);
        Box::pin(std::future::ready(()))
    }
}

/// The timer thread's state: the pending waits by deadline (and a number that tells apart two
/// waits with the same deadline), each with the waker to call when it is due.
#[derive(Default)]
struct Timer {
    state: Mutex<Pending>,
    changed: Condvar,
}

#[derive(Default)]
struct Pending {
    next: u64,
    waiting: BTreeMap<(Instant, u64), Waker>,
}

impl Timer {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The timer thread: wakes the waits that are due, then sleeps until the next deadline or
    /// until a wait is added.
    fn run(&self) {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some(entry) = state.waiting.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                due.push(entry.remove());
            }
            if !due.is_empty() {
                drop(state);
                due.into_iter().for_each(Waker::wake);
                state = self.lock();
                continue;
            }
            let next = state.waiting.keys().next().map(|(deadline, _)| *deadline);
            state = match next {
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(now);
                    self.changed
                        .wait_timeout(state, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => self
                    .changed
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<Timer> = OnceLock::new();
    static STARTED: Once = Once::new();
    let timer = TIMER.get_or_init(Timer::default);
    STARTED.call_once(|| {
        std::thread::Builder::new()
            .name("tooldef-timer".into())
            .spawn(|| timer.run())
            .expect("the timer thread of tooldef's SystemClock could not be started");
    });
    timer
}

/// A wait of the [`SystemClock`].
struct TimerSleep {
    /// `None`: never.
    deadline: Option<Instant>,
    /// The wait's key in the timer while it is registered.
    key: Option<(Instant, u64)>,
}

impl Future for TimerSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let Some(deadline) = this.deadline else {
            return Poll::Pending;
        };
        if Instant::now() >= deadline {
            this.deregister();
            return Poll::Ready(());
        }
        let timer = timer();
        let mut state = timer.lock();
        if let Some(waker) = this.key.and_then(|key| state.waiting.get_mut(&key)) {
            if !waker.will_wake(cx.waker()) {
                waker.clone_from(cx.waker());
            }
            return Poll::Pending;
        }
        let key = (deadline, state.next);
        state.next += 1;
        state.waiting.insert(key, cx.waker().clone());
        this.key = Some(key);
        drop(state);
        timer.changed.notify_one();
        Poll::Pending
    }
}

impl TimerSleep {
    fn deregister(&mut self) {
        if let Some(key) = self.key.take() {
            timer().lock().waiting.remove(&key);
        }
    }
}

impl Drop for TimerSleep {
    fn drop(&mut self) {
        self.deregister();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fake_clock_records_waits_and_moves_on() {
        let clock = FakeClock::new();
        let start = clock.now();
        let shared = clock.clone();
        futures::executor::block_on(shared.sleep(Duration::from_millis(500)));
        clock.advance(Duration::from_secs(1));
        assert_eq!(clock.waits(), [Duration::from_millis(500)]);
        assert_eq!(clock.now() - start, Duration::from_millis(1500));
    }

    #[test]
    fn the_system_clock_wakes_waits_in_deadline_order() {
        let clock = SystemClock;
        let start = Instant::now();
        // Several waits at once, completed by the one timer thread.
        let waits = [3u64, 1, 2].map(|ms| clock.sleep(Duration::from_millis(ms)));
        futures::executor::block_on(async {
            for w in waits {
                w.await;
            }
        });
        assert!(start.elapsed() >= Duration::from_millis(3));
        // A zero wait is due at once; a wait that cannot be represented never is.
        futures::executor::block_on(clock.sleep(Duration::ZERO));
        let mut never = clock.sleep(Duration::MAX);
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(never.as_mut().poll(&mut cx).is_pending());
    }

    #[test]
    fn a_dropped_wait_leaves_the_timer() {
        let mut wait = SystemClock.sleep(Duration::from_secs(3600));
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(wait.as_mut().poll(&mut cx).is_pending());
        let registered = |d: Duration| {
            timer()
                .lock()
                .waiting
                .keys()
                .any(|(at, _)| *at > Instant::now() + d)
        };
        assert!(registered(Duration::from_secs(3000)));
        drop(wait);
        assert!(!registered(Duration::from_secs(3000)));
    }
}
