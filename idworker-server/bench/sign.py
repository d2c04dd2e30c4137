#!/usr/bin/env python3
"""Pre-signs GET requests to the idworker server for the bench, each with its own fresh nonce.

Same scheme as io.github.idworker.signing.RequestSigner / CanonicalRequest: X-Signature = Base64(HMAC-SHA256(
secret, "GET\\n<path>\\n<canonical query>\\n<timestamp ms>\\n<nonce>")). The bench's queries are one plain
parameter (count=N), whose canonical form is the query itself.

Writes <prefix>.<t> for t in 0..threads-1, one request a line: "<timestamp> <nonce> <signature>", so that each
wrk thread serves its own file and no nonce is sent twice.

usage: sign.py SECRET PATH QUERY COUNT THREADS PREFIX
"""
import base64
import hashlib
import hmac
import secrets
import sys
import time


def main():
    secret, path, query, count, threads, prefix = sys.argv[1:7]
    count, threads = int(count), int(threads)
    key = secret.encode()
    # 10 random characters then a counter: 20 characters of [A-Za-z0-9_-], distinct within and across runs
    run = secrets.token_urlsafe(8)[:10]
    ts = str(int(time.time() * 1000))
    head = ("GET\n" + path + "\n" + query + "\n" + ts + "\n").encode()
    per = -(-count // threads)
    n = 0
    for t in range(threads):
        with open(f"{prefix}.{t}", "w") as out:
            lines = []
            for _ in range(min(per, count - n)):
                nonce = f"{run}{n:010d}"
                sig = base64.b64encode(hmac.digest(key, head + nonce.encode(), hashlib.sha256)).decode()
                lines.append(f"{ts} {nonce} {sig}\n")
                n += 1
            out.writelines(lines)


if __name__ == "__main__":
    main()
