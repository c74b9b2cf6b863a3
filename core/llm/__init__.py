"""Language-model providers: a small protocol, an OpenAI-compatible client, and none."""
