//! A small LRU of recent texts' vectors, so a repeated query skips inference.
//! Keyed by text and by side (query or passage): E5 embeds the two differently.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use engram_core::{EmbedError, Embedder};
use lru::LruCache;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Query,
    Passage,
}

type Key = (Side, String);

pub struct CachedEmbedder {
    inner: Arc<dyn Embedder>,
    cache: Mutex<LruCache<Key, Arc<Vec<f32>>>>,
}

impl CachedEmbedder {
    pub fn new(inner: Arc<dyn Embedder>, capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        Self {
            inner,
            cache: Mutex::new(LruCache::new(capacity)),
        }
    }

    fn lookup(&self, side: Side, text: &str) -> Option<Arc<Vec<f32>>> {
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&(side, text.to_owned()))
            .cloned()
    }

    async fn through(&self, side: Side, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out: Vec<Option<Vec<f32>>> = texts
            .iter()
            .map(|t| self.lookup(side, t).map(|v| v.to_vec()))
            .collect();
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let wanted: Vec<String> = missing.iter().map(|&i| texts[i].clone()).collect();
            let fresh = match side {
                Side::Query => self.inner.embed_queries(&wanted).await?,
                Side::Passage => self.inner.embed(&wanted).await?,
            };
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            for (&i, v) in missing.iter().zip(fresh) {
                cache.put((side, texts[i].clone()), Arc::new(v.clone()));
                out[i] = Some(v);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}

#[async_trait]
impl Embedder for CachedEmbedder {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.through(Side::Passage, texts).await
    }

    async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.through(Side::Query, texts).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    struct Counting(AtomicUsize);

    #[async_trait]
    impl Embedder for Counting {
        fn id(&self) -> &str {
            "counting"
        }
        fn dimensions(&self) -> usize {
            1
        }
        async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32]).collect())
        }
        async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![-(t.len() as f32)]).collect())
        }
    }

    #[tokio::test]
    async fn repeated_texts_are_embedded_once_and_order_is_kept() {
        let inner = Arc::new(Counting(AtomicUsize::new(0)));
        let cached = CachedEmbedder::new(inner.clone(), 8);
        let a = cached.embed(&["aa".into(), "b".into()]).await.unwrap();
        let b = cached
            .embed(&["b".into(), "ccc".into(), "aa".into()])
            .await
            .unwrap();
        assert_eq!(a, vec![vec![2.0], vec![1.0]]);
        assert_eq!(b, vec![vec![1.0], vec![3.0], vec![2.0]]);
        assert_eq!(inner.0.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_query_and_a_passage_of_the_same_text_are_cached_apart() {
        let inner = Arc::new(Counting(AtomicUsize::new(0)));
        let cached = CachedEmbedder::new(inner.clone(), 8);
        let passage = cached.embed(&["aa".into()]).await.unwrap();
        let query = cached.embed_queries(&["aa".into()]).await.unwrap();
        let again = cached.embed_queries(&["aa".into()]).await.unwrap();
        assert_eq!(passage, vec![vec![2.0]]);
        assert_eq!(query, vec![vec![-2.0]]);
        assert_eq!(again, query);
        assert_eq!(inner.0.load(Ordering::SeqCst), 2);
    }
}
