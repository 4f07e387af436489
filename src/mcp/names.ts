// The names of baton's MCP tools (mcp.md), apart from their definitions so that `baton verify`
// checks them without loading the MCP SDK.
export const TOOL_NAMES = ['pointer_get', 'pointer_publish', 'context_append', 'session_list', 'session_log', 'ref_capture', 'ref_list', 'search'] as const;
