//! A small bounded cache of full update bodies (`/v0/events/{update_id}` results), least
//! recently used first out. Summaries stay in the history; bodies are refetched when evicted.

use std::collections::HashMap;
use std::sync::Arc;

/// LRU cache keyed by update id.
#[derive(Debug, Clone)]
pub struct BodyCache<T> {
    capacity: usize,
    tick: u64,
    map: HashMap<String, (Arc<T>, u64)>,
}

impl<T> BodyCache<T> {
    /// A cache holding at most `capacity` bodies (at least 1).
    pub fn new(capacity: usize) -> Self {
        BodyCache {
            capacity: capacity.max(1),
            tick: 0,
            map: HashMap::new(),
        }
    }

    /// The body for `id`, marking it recently used.
    pub fn get(&mut self, id: &str) -> Option<Arc<T>> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(id).map(|(v, t)| {
            *t = tick;
            v.clone()
        })
    }

    /// The body for `id` without touching recency (for drawing).
    pub fn peek(&self, id: &str) -> Option<&Arc<T>> {
        self.map.get(id).map(|(v, _)| v)
    }

    /// Whether `id` is cached.
    pub fn contains(&self, id: &str) -> bool {
        self.map.contains_key(id)
    }

    /// Stores a body, evicting the least recently used one when full.
    pub fn insert(&mut self, id: String, body: Arc<T>) {
        self.tick += 1;
        if !self.map.contains_key(&id)
            && self.map.len() >= self.capacity
            && let Some(oldest) = self
                .map
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| k.clone())
        {
            self.map.remove(&oldest);
        }
        self.map.insert(id, (body, self.tick));
    }

    /// Number of cached bodies.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used() {
        let mut c = BodyCache::new(2);
        c.insert("a".into(), Arc::new(1));
        c.insert("b".into(), Arc::new(2));
        assert!(c.get("a").is_some());
        c.insert("c".into(), Arc::new(3));
        assert!(c.contains("a"));
        assert!(!c.contains("b"));
        assert!(c.contains("c"));
        assert_eq!(c.len(), 2);
    }
}
