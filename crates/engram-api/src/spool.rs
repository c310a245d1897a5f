//! A response body written in full before it is sent: in memory while it
//! is small, then in an anonymous temporary file (unlinked at creation, so
//! nothing else can open it and it is gone when the response ends). An
//! export reads its snapshot from the database into a spool at database
//! speed and gives the connection back; a slow client then reads the spool,
//! not the database.

use axum::body::Body;
use tokio::io::{AsyncSeekExt, AsyncWriteExt};

/// Bytes kept in memory before the spool moves to a file.
const IN_MEMORY: usize = 4 << 20;

pub(crate) enum Spool {
    Memory(Vec<u8>),
    File { file: tokio::fs::File, len: u64 },
}

impl Spool {
    pub fn new() -> Self {
        Spool::Memory(Vec::new())
    }

    pub async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Spool::Memory(buf) if buf.len() + bytes.len() <= IN_MEMORY => {
                buf.extend_from_slice(bytes);
            }
            Spool::Memory(buf) => {
                let std_file = tokio::task::spawn_blocking(tempfile::tempfile)
                    .await
                    .map_err(std::io::Error::other)??;
                let mut file = tokio::fs::File::from_std(std_file);
                file.write_all(buf).await?;
                file.write_all(bytes).await?;
                let len = (buf.len() + bytes.len()) as u64;
                *self = Spool::File { file, len };
            }
            Spool::File { file, len } => {
                file.write_all(bytes).await?;
                *len += bytes.len() as u64;
            }
        }
        Ok(())
    }

    /// The bytes written, as a body (with its length).
    pub async fn into_body(self) -> std::io::Result<(Body, u64)> {
        match self {
            Spool::Memory(buf) => {
                let len = buf.len() as u64;
                Ok((Body::from(buf), len))
            }
            Spool::File { mut file, len } => {
                file.flush().await?;
                file.rewind().await?;
                let stream = tokio_util::io::ReaderStream::with_capacity(file, 64 << 10);
                Ok((Body::from_stream(stream), len))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_spool_gives_back_what_was_written_from_memory_or_a_file() {
        for total in [10usize, IN_MEMORY + 1234] {
            let mut spool = Spool::new();
            let chunk: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
            let mut written = Vec::new();
            while written.len() < total {
                let n = chunk.len().min(total - written.len());
                spool.write(&chunk[..n]).await.unwrap();
                written.extend_from_slice(&chunk[..n]);
            }
            assert_eq!(matches!(spool, Spool::File { .. }), total > IN_MEMORY);
            let (body, len) = spool.into_body().await.unwrap();
            assert_eq!(len, total as u64);
            let read = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            assert_eq!(read.as_ref(), written.as_slice());
        }
    }
}
