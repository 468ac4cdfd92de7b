/// A random number generator that a seed makes reproducible (SplitMix64): the same seed
/// draws the same operations on every machine and every run.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// Whether a draw out of 100 falls under `percent`.
    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }

    /// One of `choices`, which must not be empty.
    mutating func pick<Element>(_ choices: [Element]) -> Element {
        choices[Int.random(in: 0..<choices.count, using: &self)]
    }
}
