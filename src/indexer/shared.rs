//! The store shared with the blocking threads that run its calls (the store's engines block;
//! PostgreSQL's client runs its own runtime, which may not be entered from an async task).

use std::sync::{Arc, Mutex, PoisonError};

use crate::store::StoreError;

/// An open index (`S`: [`crate::store::IndexReader`] or [`crate::store::IndexWriter`]), its
/// calls run one at a time on a blocking thread.
pub struct Shared<S: ?Sized>(Arc<Mutex<Box<S>>>);

impl<S: ?Sized> Clone for Shared<S> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<S: ?Sized + Send + 'static> Shared<S> {
    pub fn new(store: Box<S>) -> Shared<S> {
        Shared(Arc::new(Mutex::new(store)))
    }

    /// Runs `f` on the store on a blocking thread.
    pub async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut S) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = Arc::clone(&self.0);
        blocking(move || {
            let mut guard = store.lock().unwrap_or_else(PoisonError::into_inner);
            f(guard.as_mut())
        })
        .await
    }
}

/// Runs `f` on a blocking thread (opening an index, a store call).
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(StoreError::Engine {
            path: String::new(),
            detail: format!("the index thread failed: {e}"),
        })
    })
}
