//! The tools: names, arguments (their JSON Schemas are generated from these
//! types), descriptions written for a model, and how each maps onto one REST
//! call. Names and arguments follow the memory MCP servers agents already
//! know (Mem0's: `add_memory`, `search_memories`, `get_memory`, …), so
//! prompts carry over.

use std::sync::Arc;

use axum::http::Method;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use uuid::Uuid;

use crate::backend::{Backend, Forward, RestCall, RestReply};
use crate::render;
pub use crate::render::{ToolError, ToolOutput};

/// The user and agent a connection acts for when a call names none: from
/// the `X-Engram-User` / `X-Engram-Agent` headers of the MCP request, or
/// `ENGRAM_USER_ID` / `ENGRAM_AGENT_ID` for `engram mcp`. A key bound to a
/// user needs neither.
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
}

pub const USER_HEADER: &str = "x-engram-user";
pub const AGENT_HEADER: &str = "x-engram-agent";

impl Defaults {
    pub fn from_headers(headers: &axum::http::HeaderMap) -> Self {
        // UTF-8 is read as such (a user id may be "zoë"), not only ASCII.
        let get = |name: &str| {
            headers
                .get(name)
                .and_then(|v| std::str::from_utf8(v.as_bytes()).ok())
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        Self {
            user_id: get(USER_HEADER),
            agent_id: get(AGENT_HEADER),
        }
    }
}

// ---- arguments -----------------------------------------------------------------

/// Whose memories, for the tools that take a user: appended to their descriptions.
const WHO: &str = "user_id (and agent_id, where taken) may be left out: then the connection's user is used (a key bound to a user, or the user the client configured).";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMemoryArgs {
    /// What to remember, as a short statement in the user's terms, e.g.
    /// "Prefers window seats on long flights".
    pub text: String,
    /// false (default): store `text` as given. true: treat `text` as something
    /// the user said and let Engram extract the durable facts in it, updating
    /// or skipping what it already knows.
    pub infer: Option<bool>,
    /// A JSON object stored with the memory, e.g. {"topic": "travel"}.
    pub metadata: Option<Map<String, Value>>,
    /// Whose memory (see the tool description).
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    /// The conversation it came from, if it belongs to one.
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchMemoriesArgs {
    /// What to look for, in natural language, e.g. "where does the user live".
    pub query: String,
    /// How many memories to return (1-100, default 5).
    pub top_k: Option<i64>,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    /// Only memories from this conversation.
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMemoriesArgs {
    /// Memories per page (1-1000, default 20).
    pub limit: Option<i64>,
    /// `next_cursor` of the previous page, to read the next one.
    pub cursor: Option<String>,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryIdArgs {
    /// The memory's id, as search_memories or list_memories gave it.
    pub memory_id: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMemoryArgs {
    /// The memory's id, as search_memories or list_memories gave it.
    pub memory_id: String,
    /// The corrected text (the old one stays in the memory's history).
    pub text: Option<String>,
    /// Replaces the memory's metadata object.
    pub metadata: Option<Map<String, Value>>,
    /// Pinned memories are always in the user's profile and never decay.
    pub pinned: Option<bool>,
    /// 0-1; more important memories rank higher and are forgotten last.
    pub importance: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgetArgs {
    /// What to forget, as the user put it, e.g. "that I live in Berlin" or
    /// "my old phone number".
    pub text: String,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileArgs {
    pub user_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    /// What the conversation is about now, e.g. the user's last message.
    pub query: String,
    /// The most tokens the block may take (1-200000, default 1000).
    pub token_budget: Option<i64>,
    /// The current conversation, to include its summary and recent turns.
    pub session_id: Option<String>,
    pub user_id: Option<String>,
}

// ---- the catalogue -------------------------------------------------------------

struct Spec {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Arc<JsonObject>,
    read_only: bool,
    destructive: bool,
}

fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_type::<T>()
}

const SPECS: [Spec; 9] = [
    Spec {
        name: "add_memory",
        description: "Save something worth remembering about the user for later conversations: a preference, a fact about them, a decision, an ongoing project. Call it when the user tells you something durable (not small talk, not instructions to you). Store facts, not commands. Returns what was stored with its id; with infer=true, the facts Engram extracted and whether each was added, updated or skipped as already known.",
        schema: schema::<AddMemoryArgs>,
        read_only: false,
        destructive: false,
    },
    Spec {
        name: "search_memories",
        description: "Find what you know about the user that bears on the current topic, by meaning (not only exact words), best first. Call it before answering anything where the user's preferences, history or circumstances matter, and whenever they refer to something said before. Returns memories with id, text, date and score; outdated and deleted ones never appear.",
        schema: schema::<SearchMemoriesArgs>,
        read_only: true,
        destructive: false,
    },
    Spec {
        name: "list_memories",
        description: "List the user's memories, newest first, a page at a time (pass next_cursor to continue). Use it to review everything stored, e.g. when the user asks what you remember about them; to answer a question prefer search_memories.",
        schema: schema::<ListMemoriesArgs>,
        read_only: true,
        destructive: false,
    },
    Spec {
        name: "get_memory",
        description: "Read one memory by id, with its source, dates and metadata.",
        schema: schema::<MemoryIdArgs>,
        read_only: true,
        destructive: false,
    },
    Spec {
        name: "update_memory",
        description: "Correct a memory by id: new text, metadata, importance, or pin it. Use it when the user corrects something you stored; the old text stays in the memory's history. Returns the memory as it now is.",
        schema: schema::<UpdateMemoryArgs>,
        read_only: false,
        destructive: false,
    },
    Spec {
        name: "delete_memory",
        description: "Delete one memory by id, when it is wrong or the user asks you to remove it. To forget something described in words rather than by id, use forget.",
        schema: schema::<MemoryIdArgs>,
        read_only: false,
        destructive: true,
    },
    Spec {
        name: "forget",
        description: "Forget what the user asks you to forget, described in words (\"that I live in Berlin\", \"my old job\"): the matching memories are retired, with the request recorded as the reason. Call it when the user says forget/don't remember/delete something. Returns the memories retired; none when nothing matched.",
        schema: schema::<ForgetArgs>,
        read_only: false,
        destructive: true,
    },
    Spec {
        name: "get_profile",
        description: "The user's core profile: the current value of each thing known about them (name, home, job, preferences…) and every pinned memory, with their latest conversation summary. Call it at the start of a conversation to know who you are talking to.",
        schema: schema::<ProfileArgs>,
        read_only: true,
        destructive: false,
    },
    Spec {
        name: "get_context",
        description: "A ready-to-use memory block for the current turn within a token budget: the user's profile, the memories relevant to `query`, and, with session_id, that conversation's summary and recent turns. Put the returned text in your context; it says memories may be outdated and never override what the user says now.",
        schema: schema::<ContextArgs>,
        read_only: true,
        destructive: false,
    },
];

/// Every tool, as `tools/list` shows it.
pub fn catalogue() -> Vec<Tool> {
    SPECS
        .iter()
        .map(|s| {
            let schema = (s.schema)();
            // The tools that take a user say how it defaults.
            let names_user = schema
                .get("properties")
                .and_then(|p| p.get("user_id"))
                .is_some();
            let description = if names_user {
                format!("{} {WHO}", s.description)
            } else {
                s.description.to_owned()
            };
            Tool::new(s.name, description, schema).with_annotations(
                ToolAnnotations::new()
                    .read_only(s.read_only)
                    .destructive(s.destructive)
                    .open_world(false),
            )
        })
        .collect()
}

// ---- running a tool ------------------------------------------------------------

/// Runs a tool; `None` when no tool has this name.
pub async fn run(
    backend: &dyn Backend,
    forward: &Forward,
    defaults: &Defaults,
    name: &str,
    args: JsonObject,
) -> Option<Result<ToolOutput, ToolError>> {
    let cx = Cx {
        backend,
        forward,
        defaults,
    };
    Some(match name {
        "add_memory" => cx.add_memory(parse(args)).await,
        "search_memories" => cx.search(parse(args)).await,
        "list_memories" => cx.list(parse(args)).await,
        "get_memory" => cx.by_id(parse(args), Method::GET).await,
        "update_memory" => cx.update(parse(args)).await,
        "delete_memory" => cx.by_id(parse(args), Method::DELETE).await,
        "forget" => cx.forget(parse(args)).await,
        "get_profile" => cx.profile(parse(args)).await,
        "get_context" => cx.context(parse(args)).await,
        _ => return None,
    })
}

fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| ToolError::Arguments(format!("invalid arguments: {e}")))
}

struct Cx<'a> {
    backend: &'a dyn Backend,
    forward: &'a Forward,
    defaults: &'a Defaults,
}

impl Cx<'_> {
    async fn send(
        &self,
        method: Method,
        path: String,
        body: Option<Value>,
    ) -> Result<Value, ToolError> {
        let RestReply { status, body } = self
            .backend
            .send(self.forward, RestCall { method, path, body })
            .await
            .map_err(|e| ToolError::Unreachable(e.0))?;
        if (200..300).contains(&status) {
            Ok(body)
        } else {
            Err(ToolError::Problem {
                status,
                problem: body,
            })
        }
    }

    fn user(&self, asked: Option<String>) -> Option<String> {
        asked.or_else(|| self.defaults.user_id.clone())
    }

    fn agent(&self, asked: Option<String>) -> Option<String> {
        asked.or_else(|| self.defaults.agent_id.clone())
    }

    /// The user a call is about when the endpoint needs one named: the
    /// argument, the connection's default, or the user the key is bound to.
    async fn named_user(&self, asked: Option<String>) -> Result<String, ToolError> {
        if let Some(u) = self.user(asked) {
            return Ok(u);
        }
        let me = self.send(Method::GET, "/v1/me".into(), None).await?;
        me["user_id"].as_str().map(str::to_owned).ok_or_else(|| {
            ToolError::Arguments(
                "user_id is required: this key is not bound to a user and the connection names no default user (X-Engram-User header, or ENGRAM_USER_ID for engram mcp)".into(),
            )
        })
    }

    async fn add_memory(
        &self,
        args: Result<AddMemoryArgs, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let infer = a.infer.unwrap_or(false);
        if !infer {
            fact_not_instruction("text", &a.text)?;
        }
        let body = without_nulls(json!({
            "text": a.text,
            "infer": infer,
            "wait": infer.then_some(true),
            "metadata": a.metadata,
            "user_id": self.user(a.user_id),
            "agent_id": self.agent(a.agent_id),
            "session_id": a.session_id,
        }));
        let reply = self
            .send(Method::POST, "/v1/memories".into(), Some(body))
            .await?;
        render::added(reply)
    }

    async fn search(
        &self,
        args: Result<SearchMemoriesArgs, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let body = without_nulls(json!({
            "query": a.query,
            "top_k": a.top_k.unwrap_or(5),
            "user_id": self.user(a.user_id),
            "agent_id": self.agent(a.agent_id),
            "session_id": a.session_id,
        }));
        let reply = self
            .send(Method::POST, "/v1/memories/search".into(), Some(body))
            .await?;
        Ok(render::found(reply))
    }

    async fn list(
        &self,
        args: Result<ListMemoriesArgs, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let pairs = [
            ("limit", Some(a.limit.unwrap_or(20).to_string())),
            ("cursor", a.cursor),
            ("user_id", self.user(a.user_id)),
            ("agent_id", self.agent(a.agent_id)),
            ("session_id", a.session_id),
        ];
        let query = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().filter_map(|(k, v)| v.as_ref().map(|v| (k, v))))
            .finish();
        let reply = self
            .send(Method::GET, format!("/v1/memories?{query}"), None)
            .await?;
        Ok(render::listed(reply))
    }

    async fn by_id(
        &self,
        args: Result<MemoryIdArgs, ToolError>,
        method: Method,
    ) -> Result<ToolOutput, ToolError> {
        let id = memory_id(&args?.memory_id)?;
        let deleting = method == Method::DELETE;
        let reply = self
            .send(method, format!("/v1/memories/{id}"), None)
            .await?;
        Ok(if deleting {
            ToolOutput {
                structured: json!({"deleted": id}),
                text: format!("Deleted memory {id}."),
            }
        } else {
            render::one(reply)
        })
    }

    async fn update(
        &self,
        args: Result<UpdateMemoryArgs, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let id = memory_id(&a.memory_id)?;
        if let Some(text) = &a.text {
            fact_not_instruction("text", text)?;
        }
        let body = without_nulls(json!({
            "memory": a.text,
            "metadata": a.metadata,
            "pinned": a.pinned,
            "importance": a.importance,
        }));
        let reply = self
            .send(Method::PATCH, format!("/v1/memories/{id}"), Some(body))
            .await?;
        Ok(render::one(reply))
    }

    async fn forget(&self, args: Result<ForgetArgs, ToolError>) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let body = without_nulls(json!({
            "messages": [{"role": "user", "content": forget_request(&a.text)}],
            "infer": true,
            "wait": true,
            "user_id": self.user(a.user_id),
            "agent_id": self.agent(a.agent_id),
        }));
        let reply = self
            .send(Method::POST, "/v1/memories".into(), Some(body))
            .await?;
        render::forgotten(reply)
    }

    async fn profile(&self, args: Result<ProfileArgs, ToolError>) -> Result<ToolOutput, ToolError> {
        let user = self.named_user(args?.user_id).await?;
        let reply = self
            .send(
                Method::GET,
                format!("/v1/users/{}/profile", segment(&user)),
                None,
            )
            .await?;
        Ok(render::profile(reply))
    }

    async fn context(&self, args: Result<ContextArgs, ToolError>) -> Result<ToolOutput, ToolError> {
        let a = args?;
        let user = self.named_user(a.user_id).await?;
        let body = without_nulls(json!({
            "user_id": user,
            "query": a.query,
            "token_budget": a.token_budget.unwrap_or(1000),
            "session_id": a.session_id,
        }));
        let reply = self
            .send(Method::POST, "/v1/context".into(), Some(body))
            .await?;
        Ok(render::context(reply))
    }
}

/// What an agent stores verbatim must be a fact, not an instruction to an
/// assistant: a model can be talked into saving "ignore your previous
/// instructions…", which a later session would read back as memory. (With
/// `infer`, extraction applies the same rule per sentence.)
fn fact_not_instruction(field: &str, text: &str) -> Result<(), ToolError> {
    match engram_core::policy::instruction_reason(text) {
        Some(why) => Err(ToolError::Arguments(format!(
            "{field}: not stored, it reads as an instruction to an assistant ({why}); memories hold facts about the user, e.g. \"The user prefers short answers\""
        ))),
        None => Ok(()),
    }
}

/// A memory id must be a UUID before it goes into a path (so no argument
/// can reach another route).
fn memory_id(raw: &str) -> Result<Uuid, ToolError> {
    Uuid::try_parse(raw.trim()).map_err(|_| {
        ToolError::Arguments(format!(
            "memory_id: `{raw}` is not a memory id (a UUID from search_memories or list_memories)"
        ))
    })
}

/// A path segment, every byte outside the unreserved set percent-encoded.
fn segment(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The sentence Engram's extraction reads as a request to forget: the
/// text as it came when it already asks to forget (in any language the
/// rules read), else "Forget …" before it.
fn forget_request(text: &str) -> String {
    let t = text.trim();
    if engram_core::text::statement::asks_to_forget(t) {
        t.to_owned()
    } else {
        format!("Forget {t}")
    }
}

/// Drops the null members of an object, so absent arguments stay absent.
fn without_nulls(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.retain(|_, v| !v.is_null());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_a_description() {
        let tools = catalogue();
        assert_eq!(tools.len(), 9);
        for t in &tools {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| d.len() > 40));
        }
        let with_who: Vec<&str> = tools
            .iter()
            .filter(|t| t.description.as_deref().is_some_and(|d| d.ends_with(WHO)))
            .map(|t| t.name.as_ref())
            .collect();
        assert_eq!(
            with_who,
            [
                "add_memory",
                "search_memories",
                "list_memories",
                "forget",
                "get_profile",
                "get_context"
            ]
        );
        let add = &tools[0].input_schema;
        assert_eq!(add["required"], json!(["text"]));
        assert_eq!(add["additionalProperties"], json!(false));
    }

    #[test]
    fn ids_and_path_segments_cannot_leave_their_route() {
        assert!(memory_id("../admin/keys").is_err());
        assert!(memory_id("00000000-0000-0000-0000-00000000000g").is_err());
        assert!(memory_id(" 01a233a5-4bde-7323-a345-7a05524b501b ").is_ok());
        assert_eq!(
            segment("../a b/ü?x=1#"),
            "%2E%2E%2Fa%20b%2F%C3%BC%3Fx%3D1%23"
        );
    }

    #[test]
    fn forget_requests_read_as_requests() {
        assert_eq!(
            forget_request("that I live in Berlin"),
            "Forget that I live in Berlin"
        );
        assert_eq!(
            forget_request("Don't remember my address"),
            "Don't remember my address"
        );
        assert_eq!(forget_request("  my old job "), "Forget my old job");
    }
}
