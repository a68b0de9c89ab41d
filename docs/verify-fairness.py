import hashlib, struct
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

def stream(seed: bytes, label: bytes):
    key = hashlib.sha256(seed + label).digest()
    enc = Cipher(algorithms.ChaCha20(key, b"\x00" * 16), mode=None).encryptor()
    while True:
        for (x,) in struct.iter_unpack("<Q", enc.update(b"\x00" * 64)):
            yield x

def below(words, n):
    if n <= 1:
        return 0
    rem = (2**64) % n
    while True:
        x = next(words)
        if rem == 0 or x < 2**64 - rem:
            return x % n

def shuffle(words, items):
    for i in range(len(items) - 1, 0, -1):
        j = below(words, i + 1)
        items[i], items[j] = items[j], items[i]
    return items

seed = bytes(range(32))
print(hashlib.sha256(seed).hexdigest())
print(hex(next(stream(seed, b"setup"))))
print(shuffle(stream(seed, b"setup"), list(range(16))))
print(shuffle(stream(seed, (7).to_bytes(8, "big")), list(range(12))))
w = stream(seed, (0).to_bytes(8, "big")); print([below(w, 6) for _ in range(5)])

# Sealed-move receipts: the commitment of a move, from its parts.
import json

def commitment(match_id: str, step: int, seat: int, action, nonce_hex: str) -> str:
    canonical = json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = "\n".join(["sealed-orders/move-commitment/v1", match_id, str(step), str(seat), canonical, nonce_hex])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

print(commitment("01936f3e-8b7a-7c00-9a00-000000000001", 3, 1,
                 {"type": "play", "stake": 2, "card": "trade"}, "00" * 31 + "01"))
