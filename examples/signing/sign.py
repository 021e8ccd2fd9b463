# X-Server-Authorization (docs/protocol.md §2.1) in Python 3, checked against
# the vectors of Appendix A: python3 sign.py vectors.json
import hashlib
import hmac
import json
import re
import sys

# --- the snippet -------------------------------------------------------
def sign(secret: str, body: bytes) -> str:
    """The signature of the exact bytes sent, under the secret's UTF-8 bytes."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, signature: str) -> bool:
    """A received signature checked in constant time: exactly 64 characters 0-9a-f, and equal."""
    if not isinstance(signature, str) or not re.fullmatch(r"[0-9a-f]{64}", signature):
        return False
    return hmac.compare_digest(sign(secret, body), signature)
# -----------------------------------------------------------------------


def main() -> int:
    with open(sys.argv[1] if len(sys.argv) > 1 else "vectors.json", encoding="utf-8") as file:
        vectors = json.load(file)["vectors"]
    failed = 0
    for vector in vectors:
        body = vector["body"].encode("utf-8")
        ok = (
            sign(vector["secret"], body) == vector["signature"]
            and verify(vector["secret"], body, vector["signature"])
            and not verify(vector["secret"], body, vector["signature"].upper())
        )
        print(("ok " if ok else "FAILED ") + vector["name"])
        failed += 0 if ok else 1
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
