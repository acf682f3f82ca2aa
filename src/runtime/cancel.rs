//! Cancelling a call from outside it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// A handle that cancels the calls it is given to ([`RunOptions::cancel`]). Clones share one
/// state: cancel any clone and every call holding the token stops. A token cannot be reset.
///
/// A cancelled call stops waiting at once: the handler's future is dropped (a sync handler's
/// thread runs on, and its result is thrown away), and the call resolves as
/// [`CallErrorKind::Cancelled`](super::CallErrorKind::Cancelled). A call given a token that is
/// already cancelled does not start.
///
/// [`RunOptions::cancel`]: super::RunOptions::cancel
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    next: AtomicU64,
    waiting: Mutex<Vec<(u64, Waker)>>,
}

impl Inner {
    fn waiting(&self) -> MutexGuard<'_, Vec<(u64, Waker)>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels every call holding this token, now and later.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
        let waiting = std::mem::take(&mut *self.inner.waiting());
        for (_, waker) in waiting {
            waker.wake();
        }
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// A future that completes when the token is cancelled.
    pub(crate) fn cancelled(&self) -> Cancelled<'_> {
        Cancelled {
            token: self,
            id: None,
        }
    }
}

/// Completes when its token is cancelled.
pub(crate) struct Cancelled<'a> {
    token: &'a CancelToken,
    /// The key of this future's waker in the token, once registered.
    id: Option<u64>,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let token = self.token;
        let inner = &token.inner;
        if inner.cancelled.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        let mut waiting = inner.waiting();
        match self.id {
            Some(id) => {
                if let Some((_, waker)) = waiting.iter_mut().find(|(i, _)| *i == id) {
                    waker.clone_from(cx.waker());
                }
            }
            None => {
                let id = inner.next.fetch_add(1, Ordering::Relaxed);
                waiting.push((id, cx.waker().clone()));
                drop(waiting);
                self.id = Some(id);
            }
        }
        // `cancel` may have run between the first look and the registration.
        if token.is_cancelled() {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl Drop for Cancelled<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.token.inner.waiting().retain(|(i, _)| *i != id);
        }
    }
}
