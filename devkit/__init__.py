"""What the demo, the benchmarks and the tests share: ports, child processes, one loopback
server runner, the local stack (TTS server + agent), one paced text source, one protocol
client, and the caller of the voice agent.

Dependencies point one way: kokoro_server, voice_agent <- devkit <- demo, bench, tests.
Nothing here is shipped in an image.
"""
