#!/usr/bin/python3
"""subscribe.py - a complete fathom consumer in plain Python (standard library + pyzmq).

Subscribes to a `fathom aggregate`, prints one JSON object per event, acknowledges what it
printed, detects gaps and lost connections and resubscribes from the last id it has, and
exits non-zero on a permanent refusal. The protocol is specified in docs/protocol.md; this
file follows its section numbers.

    subscribe.py --from tcp://HOST:PORT --key client.key --server-key server.pub \\
                 [--since ID] [--name NAME] [--path PREFIX [-r]] [-n N] [--insecure]
"""

import argparse
import base64
import json
import os
import sys
import time

import zmq

# -- 2. Encoding ----------------------------------------------------------------------------

MAGIC = b"\xf7\x4d"
VERSION = 2

SUBSCRIBE, ACK = 0x10, 0x11
SUBSCRIBED, EVENTS, HEARTBEAT, ERROR = 0x90, 0x91, 0x92, 0xFF

FLAG_HAS_SINCE, FLAG_RECURSIVE = 0x01, 0x02
MAX_EVENTS = 65536
CHUNK_EVENTS = 4096

ERROR_NAMES = {1: "Malformed", 2: "Version", 3: "NotPermitted", 4: "PositionGap",
               5: "Unavailable", 6: "Purged", 7: "UnknownSession"}
ERROR_UNAVAILABLE, ERROR_UNKNOWN_SESSION = 5, 7

# 4.3: kind bits in the order their names are printed (ISDIR last).
KINDS = [(0x1, "ACCESS"), (0x2, "MODIFY"), (0x4, "ATTRIB"), (0x8, "CLOSE_WRITE"),
         (0x10, "CLOSE_NOWRITE"), (0x20, "OPEN"), (0x40, "MOVED_FROM"), (0x80, "MOVED_TO"),
         (0x100, "CREATE"), (0x200, "DELETE"), (0x400, "DELETE_SELF"), (0x800, "MOVE_SELF"),
         (0x4000, "OVERFLOW"), (0x10000, "PARENT_REMOVED"), (0x40000000, "ISDIR")]
ALL_KINDS = 0x14FFF

SILENCE_S = 3.0  # no message for this long (heartbeats come every second): reconnect


class Malformed(Exception):
    """A frame that does not follow docs/protocol.md."""


def put_varint(out, value):
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def put_string(out, data):
    put_varint(out, len(data))
    out += data


def frame(msg_type, body=b""):
    return MAGIC + bytes([VERSION, msg_type]) + bytes(body)


class Reader:
    """Bounds-checked reading of one frame's body."""

    def __init__(self, data, pos=0, end=None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def varint(self):
        value = 0
        for i in range(10):
            if self.pos >= self.end:
                raise Malformed("truncated varint")
            byte = self.data[self.pos]
            self.pos += 1
            if i == 9 and byte > 1:
                break
            value |= (byte & 0x7F) << (7 * i)
            if byte < 0x80:
                return value
        raise Malformed("varint longer than 64 bits")

    def raw(self):
        n = self.varint()
        if n > self.end - self.pos:
            raise Malformed("string of %d bytes runs past the frame" % n)
        start = self.pos
        self.pos += n
        return self.data[start:self.pos]

    def done(self):
        if self.pos != self.end:
            raise Malformed("%d trailing bytes" % (self.end - self.pos))


def text(raw):
    # Paths are bytes; undecodable ones survive printing through surrogateescape.
    return raw.decode("utf-8", "surrogateescape")


def decode_attrs(reader, prev):
    """4.3: attrs as pieces, each new or written against a piece of `prev` (a list)."""
    pieces = []
    base = 0
    for _ in range(reader.varint()):
        tag = reader.varint()
        if tag == 0:
            pieces.append(reader.raw())
            continue
        index = base + (tag - 1) // 2
        if index >= len(prev):
            raise Malformed("attrs piece refers to piece %d of %d" % (index, len(prev)))
        base = index + 1
        if tag % 2 == 1:
            pieces.append(prev[index])
            continue
        shared = reader.varint()
        if shared > len(prev[index]):
            raise Malformed("attrs piece shares %d bytes of a %d-byte piece" % (shared, len(prev[index])))
        pieces.append(prev[index][:shared] + reader.raw())
    return pieces


def decode_chunk(reader, most, events):
    """4.3: one chunk of 1..`most` events appended to `events` as dicts (ids set later)."""
    if reader.varint() != 0:
        raise Malformed("chunk does not start with the marker byte 0")
    count = reader.varint()
    if not 1 <= count <= most:
        raise Malformed("chunk holds %d events, expected 1..%d" % (count, most))
    table = []
    ts = 0
    path = b""
    attrs = []

    def interned():
        index = reader.varint()
        if index < len(table):
            return table[index]
        if index != len(table):
            raise Malformed("string table index %d beyond %d entries" % (index, len(table)))
        table.append(text(reader.raw()))
        return table[-1]

    for _ in range(count):
        zz = reader.varint()
        delta = (zz >> 1) ^ -(zz & 1)
        ts = (ts + delta + 2**63) % 2**64 - 2**63
        mask = reader.varint()
        cookie = reader.varint()
        root = interned()
        source = interned()
        shared = reader.varint()
        if shared > len(path):
            raise Malformed("shared prefix %d longer than the previous path" % shared)
        path = path[:shared] + reader.raw()
        attrs = decode_attrs(reader, attrs)
        events.append({"ts": ts, "mask": mask, "cookie": cookie, "root": root,
                       "source": source, "path": text(path), "attrs": text(b",".join(attrs))})


def decode_events(reader, after_id, through_id):
    """4.2: an event list with ids."""
    count = reader.varint()
    if count > MAX_EVENTS:
        raise Malformed("event count %d exceeds %d" % (count, MAX_EVENTS))
    ids = []
    if count:
        ids.append(reader.varint())
        for _ in range(count - 1):
            step = reader.varint()
            if step == 0:
                raise Malformed("event ids do not increase")
            ids.append(ids[-1] + step)
        if ids[0] <= after_id or ids[-1] > through_id:
            raise Malformed("event ids outside (%d, %d]" % (after_id, through_id))
    events = []
    while len(events) < count:
        length = reader.varint()
        if length > reader.end - reader.pos:
            raise Malformed("chunk of %d bytes runs past the frame" % length)
        chunk = Reader(reader.data, reader.pos, reader.pos + length)
        decode_chunk(chunk, min(CHUNK_EVENTS, count - len(events)), events)
        chunk.done()
        reader.pos += length
    for event, event_id in zip(events, ids):
        event["id"] = event_id
    return events


def decode(data):
    """A frame as (type, fields); raises Malformed."""
    if len(data) < 4 or data[0:2] != MAGIC:
        raise Malformed("not a fathom frame")
    if data[2] != VERSION:
        raise Malformed("protocol version %d (this client speaks %d)" % (data[2], VERSION))
    msg_type = data[3]
    r = Reader(data, 4)
    if msg_type == SUBSCRIBED:
        fields = {"start_after": r.varint(), "first_id": r.varint(), "last_id": r.varint()}
    elif msg_type == EVENTS:
        after_id, through_id = r.varint(), r.varint()
        if through_id < after_id:
            raise Malformed("through_id %d before after_id %d" % (through_id, after_id))
        fields = {"after_id": after_id, "through_id": through_id,
                  "events": decode_events(r, after_id, through_id)}
    elif msg_type == HEARTBEAT:
        fields = {"through_id": r.varint()}
    elif msg_type == ERROR:
        fields = {"code": r.varint(), "position": r.varint(),
                  "message": r.raw().decode("utf-8", "replace")}
    else:
        return msg_type, None  # a message a consumer does not expect: ignored
    r.done()
    return msg_type, fields


def encode_subscribe(name, since, prefix, recursive, kinds, credit):
    body = bytearray()
    put_string(body, name.encode())
    body.append((FLAG_HAS_SINCE if since is not None else 0) | (FLAG_RECURSIVE if recursive else 0))
    put_varint(body, since or 0)
    put_string(body, prefix.encode("utf-8", "surrogateescape"))
    put_varint(body, kinds)
    put_varint(body, credit)
    return frame(SUBSCRIBE, body)


def encode_ack(event_id, credit):
    body = bytearray()
    put_varint(body, event_id)
    put_varint(body, credit)
    return frame(ACK, body)


# -- 1. Transport ---------------------------------------------------------------------------

def load_key_file(path):
    """{"public-key": ..., "secret-key": ...} from a `fathom keygen` file."""
    keys = {}
    with open(path, encoding="ascii") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, value = line.partition("=")
            if not sep:
                sys.exit("subscribe.py: %s:%d: expected 'public-key = KEY'" % (path, number))
            keys[name.strip()] = value.strip()
    return keys


def open_socket(context, args, keys):
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    if not args.insecure:
        sock.curve_serverkey = keys["server"].encode()
        sock.curve_publickey = keys["public"].encode()
        sock.curve_secretkey = keys["secret"].encode()
    sock.connect(args.endpoint)
    return sock


# -- 6.2 The consumer conversation ----------------------------------------------------------

def with_exact_names(record):
    """docs/formats.md: JSON text is UTF-8, so a string that is not (a file name's bytes, kept
    here with surrogateescape) is printed lossily, with its exact bytes in KEY_b64."""
    for key, value in list(record.items()):
        if not isinstance(value, str):
            continue
        raw = value.encode("utf-8", "surrogateescape")
        lossy = raw.decode("utf-8", "replace")
        if lossy != value:
            record[key] = lossy
            record[key + "_b64"] = base64.b64encode(raw).decode("ascii")
    return record


def print_event(event, out):
    record = {"id": event["id"], "ts": event["ts"],
              "events": [name for bit, name in KINDS if event["mask"] & bit],
              "path": event["path"], "root": event["root"], "cookie": event["cookie"],
              "source": event["source"]}
    if event["attrs"]:
        try:
            record.update(json.loads(event["attrs"]))
        except ValueError:
            record["attrs"] = event["attrs"]
    out.write(json.dumps(with_exact_names(record), ensure_ascii=False, separators=(",", ":")) + "\n")


def run(args, keys):
    context = zmq.Context()
    since = args.since          # resubscriptions set it to the last id covered
    printed = 0
    delivered = 0               # highest id printed (never print one twice)
    backoff = 0.1
    while True:
        sock = open_socket(context, args, keys)
        sock.send(encode_subscribe(args.name, since, args.path, args.recursive,
                                   ALL_KINDS, args.credit))
        last = None             # through_id of the previous message; None until Subscribed
        reason = None
        while reason is None:
            if not sock.poll(int(SILENCE_S * 1000)):
                reason = "no message for %.0f s" % SILENCE_S
                break
            try:
                msg_type, m = decode(sock.recv())
            except Malformed as e:
                reason = "malformed frame (%s)" % e
                break
            if m is None:
                continue
            if msg_type == SUBSCRIBED:
                last = m["start_after"]
                backoff = 0.1
            elif msg_type == EVENTS and last is not None:
                if m["after_id"] != last:
                    reason = "ids %d..%d skipped" % (last + 1, m["after_id"])
                    break
                for event in m["events"]:
                    if event["id"] <= delivered:
                        continue
                    print_event(event, sys.stdout)
                    delivered = event["id"]
                    printed += 1
                    if printed == args.max_count:
                        sys.stdout.flush()
                        sock.send(encode_ack(event["id"], args.credit))
                        sock.close()
                        return 0
                sys.stdout.flush()
                last = m["through_id"]
                sock.send(encode_ack(last, args.credit))
            elif msg_type == HEARTBEAT and last is not None:
                if m["through_id"] > last:
                    reason = "a message was lost (heartbeat through %d)" % m["through_id"]
            elif msg_type == ERROR:
                code = m["code"]
                name = ERROR_NAMES.get(code, "code %d" % code)
                if code == ERROR_UNKNOWN_SESSION:
                    reason = "the aggregator does not know this session"
                elif code == ERROR_UNAVAILABLE:
                    reason = "aggregator unavailable (%s)" % m["message"]
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 2.0)
                else:
                    print("subscribe.py: the aggregator refused: %s: %s" % (name, m["message"]),
                          file=sys.stderr)
                    sock.close()
                    return 2
        sock.close()
        if last is not None:
            since = last
        where = "live only" if since is None else "after id %d" % since
        print("subscribe.py: resubscribing (%s): %s" % (where, reason), file=sys.stderr)


def whole_number(text):
    """argparse type: an integer >= 0, as fathom's own options take."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError("'%s' is not a whole number >= 0" % text)
    return value


def main():
    p = argparse.ArgumentParser(description="Print the events of a fathom aggregator as JSON lines.")
    p.add_argument("--from", dest="endpoint", required=True, help="tcp://HOST:PORT of `fathom aggregate`")
    p.add_argument("--key", help="this client's key file (fathom keygen: NAME.key)")
    p.add_argument("--server-key", help="the aggregator's public key: a .pub file or the Z85 key")
    p.add_argument("--insecure", action="store_true", help="plain ZeroMQ without CURVE")
    p.add_argument("--since", type=whole_number, help="deliver ids after this one")
    p.add_argument("--name", default="", help="durable consumer name (progress kept by the aggregator)")
    p.add_argument("--path", default="", help="only this path and its direct entries (with -r: everything under it)")
    p.add_argument("-r", "--recursive", action="store_true",
                   help="with --path: the whole subtree, not just the path and its direct entries")
    p.add_argument("-n", "--max-count", type=whole_number, default=0, help="exit after this many events (0 = never)")
    p.add_argument("--credit", type=whole_number, default=8192, help="events sent ahead of acknowledgements")
    args = p.parse_args()

    keys = {}
    if not args.insecure:
        if not args.key or not args.server_key:
            p.error("--key and --server-key are required unless --insecure")
        if not zmq.has("curve"):
            sys.exit("subscribe.py: this libzmq lacks CURVE; use --insecure against an insecure aggregator")
        own = load_key_file(args.key)
        server = args.server_key
        if os.path.exists(server):
            server = load_key_file(server).get("public-key", "")
        if "public-key" not in own or "secret-key" not in own or len(server) != 40:
            sys.exit("subscribe.py: %s needs public-key and secret-key lines, and --server-key a public key"
                     % args.key)
        keys = {"public": own["public-key"], "secret": own["secret-key"], "server": server}
    try:
        return run(args, keys)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
