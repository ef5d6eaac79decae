"""The agent: tool registry, tool-calling loop, approvals and typed history (no Discord)."""
