"""uvicorn's HTTP protocol with a lingering close, so that an answer given before the request body ended
(a 413 for an upload over the limit) reaches the client.

uvicorn closes a `Connection: close` response's socket at once; if the client is still sending, the kernel
answers the unread bytes with a reset, and a client that reads its response after sending (most do) gets
ECONNRESET instead of the 413. Here such a close first half-closes (FIN after the response), then reads
and discards what the client still sends until it closes its side, or LINGER_SECONDS pass (nginx's
lingering close). A close with the request fully read is uvicorn's own.

`api.serve` passes `protocol_class()` to uvicorn.Config(http=...)."""
from __future__ import annotations

import asyncio

LINGER_SECONDS = 10.0


class _LingeringTransport:
    """The real transport, except that close() lingers while the protocol says the body has not ended."""

    def __init__(self, transport: asyncio.Transport, protocol):
        self._t, self._protocol = transport, protocol
        self._closing = False
        self._timer: asyncio.TimerHandle | None = None

    def __getattr__(self, name):
        return getattr(self._t, name)

    def is_closing(self) -> bool:
        return self._closing or self._t.is_closing()

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        if self._protocol.body_pending and not self._t.is_closing() and self._t.can_write_eof():
            self._protocol.lingering = True
            self._t.write_eof()       # sends what is buffered (the response), then FIN
            self._t.resume_reading()  # keep reading: unread bytes at close() are what cause the reset
            self._timer = asyncio.get_running_loop().call_later(LINGER_SECONDS, self._t.close)
        else:
            self._t.close()

    def abort(self) -> None:
        self._closing = True
        self.cancel_timer()
        self._t.abort()

    def finish(self) -> None:
        self.cancel_timer()
        self._t.close()

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def protocol_class():
    """HttpToolsProtocol with a lingering close, or "auto" (uvicorn's choice) where httptools is absent."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return "auto"

    class LingeringHttpToolsProtocol(HttpToolsProtocol):
        body_pending = False   # a request began and its body has not ended
        lingering = False

        def connection_made(self, transport):
            super().connection_made(_LingeringTransport(transport, self))

        def data_received(self, data: bytes) -> None:
            if self.lingering:
                return  # discarded: the answer is sent, the client is finishing its body
            super().data_received(data)

        def eof_received(self):
            if self.lingering:
                self.transport.finish()
                return None
            return super().eof_received()

        def connection_lost(self, exc):
            if isinstance(self.transport, _LingeringTransport):
                self.transport.cancel_timer()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            self.body_pending = True
            super().on_message_begin()

        def on_message_complete(self) -> None:
            self.body_pending = False
            super().on_message_complete()

    return LingeringHttpToolsProtocol
