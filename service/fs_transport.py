"""The embedded queue: kombu's filesystem transport with atomic puts and same-filesystem claims.

kombu's own `_put` writes the final file in place (a poller can read it half-written) and `_get` moves
it to the system temp folder (a copy across filesystems). Here a message is written under a dot-name
and renamed into place, and a consumer claims it by renaming it into a folder next to the queue."""
from __future__ import annotations

import json
import os
import time
import uuid

from kombu.transport import filesystem
from kombu.transport.virtual import Empty
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads


class Channel(filesystem.Channel):
    """Filesystem channel: one file per message, `<ns>_<uuid>.<queue>.msg`, oldest first."""

    def _put(self, queue, payload, **kwargs):
        name = f"{time.time_ns():020d}_{uuid.uuid4().hex}.{queue}.msg"
        tmp = os.path.join(self.data_folder_out, f".tmp-{name}")
        with open(tmp, "wb") as f:
            f.write(str_to_bytes(dumps(payload)))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(self.data_folder_out, name))

    def _get(self, queue):
        suffix = f".{queue}.msg"
        claimed = self.transport_options.get("claimed_folder") or self.data_folder_in
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.startswith(".") or not name.endswith(suffix) or name.partition(".")[2] != suffix[1:]:
                continue
            dst = os.path.join(claimed, f"{os.getpid()}-{name}.claimed")
            try:
                os.replace(os.path.join(self.data_folder_in, name), dst)  # atomic: one consumer wins
            except FileNotFoundError:
                continue
            try:
                with open(dst, "rb") as f:
                    payload = f.read()
            finally:
                os.unlink(dst)
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel


def pending_task_ids(folder: str) -> set[str]:
    """Task ids of the messages waiting in the queue folder (any queue)."""
    ids = set()
    for name in os.listdir(folder):
        if name.startswith(".") or not name.endswith(".msg"):
            continue
        try:
            with open(os.path.join(folder, name), "rb") as f:
                msg = json.loads(f.read())
        except (OSError, ValueError):
            continue
        task_id = (msg.get("headers") or {}).get("id")
        if task_id:
            ids.add(task_id)
    return ids
