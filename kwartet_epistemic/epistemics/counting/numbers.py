"""The number theory of exact counting beyond 2^128: primes below 2^62 and the Chinese
remainder theorem, which joins the residues that the kernel counts modulo each prime.

>>> primes = primes_beyond(10**40)
>>> join_residues([10**40 % p for p in primes], primes) == 10**40
True
"""

from __future__ import annotations

__all__ = ["is_prime", "join_residues", "primes_beyond"]

# The largest primes below 2^62, largest first (the tests check them against sympy); more
# are found by :func:`is_prime` where a bound needs them (importing sympy for its
# ``prevprime`` would cost the first big count half a second).
_PRIMES: list[int] = [(1 << 62) - d for d in (57, 87, 117, 143, 153, 167, 171, 195)]


def is_prime(n: int) -> bool:
    """Whether ``n`` (below 2^64) is prime: Miller-Rabin with the first twelve primes as
    bases, which is exact below 3.3 * 10^24.

    >>> [n for n in range(30) if is_prime(n)]
    [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    """
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    if n < 2:
        return False
    for p in bases:
        if n % p == 0:
            return n == p
    odd, twos = n - 1, 0
    while not odd & 1:
        odd >>= 1
        twos += 1
    for a in bases:
        x = pow(a, odd, n)
        if x in (1, n - 1):
            continue
        for _ in range(twos - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def primes_beyond(bound: int) -> list[int]:
    """The largest primes below 2^62, as many as make a product above ``bound``."""
    chosen: list[int] = []
    product = 1
    while product <= bound:
        if len(chosen) == len(_PRIMES):
            below = _PRIMES[-1] - 2
            while not is_prime(below):
                below -= 2
            _PRIMES.append(below)
        chosen.append(_PRIMES[len(chosen)])
        product *= chosen[-1]
    return chosen


def join_residues(residues: list[int], primes: list[int]) -> int:
    """The number in [0, product of ``primes``) with these residues (Chinese remainder
    theorem; any pairwise coprime moduli, such as primes and a power of 2).

    >>> join_residues([2, 3], [5, 7])
    17
    """
    value, modulus = 0, 1
    for residue, prime in zip(residues, primes, strict=True):
        step = (residue - value) * pow(modulus, -1, prime) % prime
        value += modulus * step
        modulus *= prime
    return value
