/// The code a person types on a second device to approve a device's sign-in (RFC 8628
/// §6.1): eight letters of a 20-letter alphabet with no vowels (so no word can form) and
/// none of the letters easily misread, shown as `BCDF-GHJK`: 20⁸, about 2.6 × 10¹⁰
/// codes (34.5 bits), of which a few live at a time for 10 minutes, against a guesser
/// the verification page slows down per address. Typed in any case, with or without the
/// hyphen and spaces.
enum UserCode {
    static let alphabet: [Character] = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let length = 8

    /// A new code, stored as its eight letters.
    static func make<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The code as a person reads it: `BCDF-GHJK`.
    static func display(_ code: String) -> String {
        "\(code.prefix(length / 2))-\(code.dropFirst(length / 2))"
    }

    /// The eight letters of what a person typed, or `nil` when it cannot be a code.
    static func normalized(_ typed: String) -> String? {
        guard typed.count <= 32 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == length, letters.allSatisfy(alphabet.contains) else { return nil }
        return letters
    }
}
