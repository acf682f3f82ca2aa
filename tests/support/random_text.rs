//! Random text for the tests and benchmarks that read hostile strings through patterns: a
//! xorshift generator, so every run reads the same text.

/// `len` characters drawn from `alphabet`, with the xorshift state `seed` (not zero), which
/// moves on.
pub fn random_text(len: usize, alphabet: &[char], seed: &mut u64) -> String {
    (0..len)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            alphabet[(*seed % alphabet.len() as u64) as usize]
        })
        .collect()
}
