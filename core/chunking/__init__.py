"""I6/I7: language-aware, paragraph-preserving chunks and their embedding inputs."""
