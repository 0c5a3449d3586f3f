"""The browser voice playground: a page that talks to the voice agent's /ws (`make playground`)."""
