//! `ctxhooks mcp`: a Model Context Protocol server over stdio (the official SDK, `rmcp`) that
//! gives the model its own past: `search`, `recall`, `sessions` and `gauge`. The runtime is
//! started here, by this command alone: no other command (the status line least of all) pays
//! for it.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use tokio::io::{AsyncRead, AsyncWrite};

use super::stdio;
use super::tools::{
    GaugeParameters, RecallParameters, SearchParameters, SessionsParameters, gauge_tool,
    recall_tool, search_tool, sessions_tool,
};
use ctxhooks_shared::store::state_dir::StateDir;

/// The name the server registers under; Claude Code shows its tools to the model as
/// `mcp__ctxhooks__search` and so on.
pub const SERVER_NAME: &str = "ctxhooks";

/// What the server tells the client at `initialize`.
const INSTRUCTIONS: &str = "ctxhooks keeps every Claude Code session word for word, also what \
a compaction summarized away and what Claude Code's cleanup deleted. Use `search` to find \
anything said in any past or current session, `recall` to read a session's messages (before a \
compaction, or those holding a pattern), `sessions` to list sessions, `gauge` for how close this \
session is to its auto-compaction.";

/// Arguments of `ctxhooks mcp`.
///
/// Serves the Model Context Protocol over stdin and stdout, for Claude Code (`ctxhooks install
/// --mcp` registers it): tools to search every kept session, recall a session's messages, list
/// sessions and read the context gauge.
#[derive(Debug, Args)]
pub struct McpArgs {}

/// The MCP server over a state folder: its tools and their router.
#[derive(Debug, Clone)]
pub struct Server {
    state: StateDir,
    #[allow(dead_code, reason = "read by the code `tool_handler` generates")]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    /// A server over the state folder `state`.
    pub fn new(state: StateDir) -> Self {
        Self {
            state,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Full-text search over everything said in every Claude Code session \
        ctxhooks keeps, past and current, in every project: user prompts, assistant answers, \
        tool calls with their inputs, tool results, sub-agents. Use it when you need something \
        from an earlier session or from before a compaction (a decision, a command, an error, a \
        file name) that is not in your context. Returns matches ranked by how they match (the \
        exact phrase first, then the words close together, then anywhere), each tier named: \
        session id, time, \
        speaker, project, the text around the match (in [brackets]), and the `recall` call that \
        shows the whole exchange.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        Parameters(parameters): Parameters<SearchParameters>,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        answer(move || search_tool(&state, &parameters)).await
    }

    #[tool(
        description = "Read a session's conversation word for word from ctxhooks' kept copy, \
        also what a compaction summarized away: its last messages, those before compaction N \
        (`before_compaction`), or those containing `pattern`. Use it after `search` (with the \
        session id and the search term) or after a compaction, when you need the exact earlier \
        messages.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn recall(
        &self,
        Parameters(parameters): Parameters<RecallParameters>,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        answer(move || recall_tool(&state, &parameters)).await
    }

    #[tool(
        description = "List the Claude Code sessions ctxhooks knows, newest first: id, last \
        activity, project, title, size, compactions, and whether Claude Code still has the \
        transcript. Use it to find a session's id by project or time before `recall`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn sessions(
        &self,
        Parameters(parameters): Parameters<SessionsParameters>,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        answer(move || sessions_tool(&state, &parameters)).await
    }

    #[tool(
        description = "How full this session's context is now against its auto-compaction \
        trigger: tokens, percent, room left, compactions so far. Use it before a large read or \
        a long task, to decide whether to compact or hand off first.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn gauge(
        &self,
        Parameters(parameters): Parameters<GaugeParameters>,
    ) -> Result<CallToolResult, ErrorData> {
        let state = self.state.clone();
        answer(move || gauge_tool(&state, &parameters)).await
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Runs a tool's work off the event loop; a failure is the tool's answer (`isError`), in words
/// the model can act on, never a protocol error.
async fn answer(
    work: impl FnOnce() -> Result<String> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    let outcome = tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    Ok(match outcome {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("error: {error:#}"))]),
    })
}

/// Serves over `input` and `output` until the client closes its end.
async fn serve(
    state: StateDir,
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Result<()> {
    let service = Server::new(state)
        .serve((input, output))
        .await
        .context("the MCP client did not complete the handshake")?;
    service
        .waiting()
        .await
        .context("the MCP server stopped on an error")?;
    Ok(())
}

/// Runs the command: serves until the client closes stdin (a line that is not JSON is answered
/// as JSON-RPC 2.0 says, by [`stdio`]).
pub fn run(_args: &McpArgs) -> Result<ExitCode> {
    let state = StateDir::locate()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the MCP server's runtime")?;
    runtime.block_on(async move {
        let stdio = stdio::start();
        let served = serve(state, stdio.input, stdio.output).await;
        // `rmcp` closed its output: the last answers go out before anything is said.
        stdio
            .writer
            .await
            .context("the MCP server's output failed")?
            .context("failed to write to stdout")?;
        served?;
        if stdio.reader.is_finished() {
            stdio
                .reader
                .await
                .context("the MCP server's input failed")?
                .context("failed to read stdin")?;
        }
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
