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
