#!/usr/bin/env python3
"""One SigV4-signed S3 request (path-style), standard library only: CI runs the RGW setup before
`npm ci`, so there is no Bun yet. Usage: s3req.py METHOD URL ACCESS_KEY SECRET_KEY [BODY]
Prints the HTTP status; exits 0 for 2xx and 409 (bucket already owned), 1 otherwise."""
import datetime, hashlib, hmac, sys, urllib.error, urllib.parse, urllib.request

method, url, ak, sk = sys.argv[1:5]
body = sys.argv[5].encode() if len(sys.argv) > 5 else b""
u = urllib.parse.urlsplit(url)
now = datetime.datetime.now(datetime.timezone.utc)
amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
ph = hashlib.sha256(body).hexdigest()
headers = {"host": u.netloc, "x-amz-content-sha256": ph, "x-amz-date": amz}
names = sorted(headers)
canon = "\n".join([method, urllib.parse.quote(u.path or "/"), "", "".join(f"{k}:{headers[k]}\n" for k in names), ";".join(names), ph])
scope = f"{day}/us-east-1/s3/aws4_request"
sts = "\n".join(["AWS4-HMAC-SHA256", amz, scope, hashlib.sha256(canon.encode()).hexdigest()])
key = ("AWS4" + sk).encode()
for part in (day, "us-east-1", "s3", "aws4_request"):
    key = hmac.new(key, part.encode(), hashlib.sha256).digest()
sig = hmac.new(key, sts.encode(), hashlib.sha256).hexdigest()
headers["authorization"] = f"AWS4-HMAC-SHA256 Credential={ak}/{scope}, SignedHeaders={';'.join(names)}, Signature={sig}"
del headers["host"]
req = urllib.request.Request(url, data=body if method in ("PUT", "POST") else None, method=method, headers=headers)
try:
    status = urllib.request.urlopen(req, timeout=30).status
except urllib.error.HTTPError as e:
    status = e.code
print(status)
sys.exit(0 if 200 <= status < 300 or status == 409 else 1)
