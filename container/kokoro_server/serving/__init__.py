"""The server: HTTP and WebSocket routes, the session protocol, scheduling and admission."""
