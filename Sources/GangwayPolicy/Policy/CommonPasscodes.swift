/// The passcodes an attacker tries first.
///
/// Two parts: a list of the most frequently chosen PINs and passwords (from public
/// analyses of leaked PIN and password sets), and patterns that make a passcode trivial
/// whatever its length: one character repeated, a straight ascending or descending
/// run of digits or letters, and a short block repeated ("121212", "abcabc").
enum CommonPasscodes {
    static let list: Set<String> = [
        // Four-digit PINs.
        "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969",
        "9999", "3333", "5555", "6666", "1122", "1313", "8888", "4321", "2001", "1010",
        "2580", "0852", "1230", "1984", "1986", "1990", "2468", "1357", "0123", "1000",
        "5683", "0007", "1001", "1020",
        // Six-digit PINs.
        "123456", "654321", "111111", "000000", "123123", "666666", "121212", "112233",
        "789456", "159753", "696969", "123321", "456789", "147258", "258369", "131313",
        "999999", "555555", "777777", "222222", "123654", "102030", "100200",
        // Eight digits and longer.
        "12345678", "87654321", "11111111", "00000000", "12341234", "11223344",
        "147258369", "123456789", "987654321", "1234567890", "0987654321",
        // Words and keyboard walks.
        "password", "passw0rd", "password1", "password!", "p@ssw0rd", "qwerty", "qwertyuiop",
        "qwerty123", "azerty", "asdfghjk", "asdfghjkl", "zxcvbnm", "iloveyou", "letmein",
        "welcome", "welcome1", "admin", "admin123", "abc123", "abcd1234", "monkey", "dragon",
        "football", "baseball", "sunshine", "princess", "trustno1", "superman", "starwars",
        "changeme", "secret", "master", "shadow", "1q2w3e4r", "1qaz2wsx", "q1w2e3r4",
        "zaq12wsx", "aa123456", "qwe123", "pass1234", "passcode",
    ]

    /// Whether the passcode is on the list or follows a trivial pattern.
    static func isCommon(_ passcode: String) -> Bool {
        let lowered = passcode.lowercased()
        if list.contains(lowered) { return true }
        let scalars = Array(lowered.unicodeScalars)
        guard scalars.count >= 2 else { return !scalars.isEmpty }
        return isRepeatedBlock(scalars) || isStraightRun(scalars)
    }

    /// "aaaa", "1212", "abcabc": the whole passcode is one short block repeated.
    private static func isRepeatedBlock(_ scalars: [Unicode.Scalar]) -> Bool {
        let count = scalars.count
        for blockLength in 1...max(1, min(3, count / 2)) where count % blockLength == 0 {
            let block = scalars[0..<blockLength]
            if stride(from: 0, to: count, by: blockLength).allSatisfy({
                scalars[$0..<($0 + blockLength)].elementsEqual(block)
            }) {
                return true
            }
        }
        return false
    }

    /// "3456", "fedcba", "7890": every step goes up (or down) by one, digits wrapping.
    private static func isStraightRun(_ scalars: [Unicode.Scalar]) -> Bool {
        let allDigits = scalars.allSatisfy { ("0"..."9").contains($0) }
        let allLetters = scalars.allSatisfy { ("a"..."z").contains($0) }
        guard allDigits || allLetters else { return false }
        let values = scalars.map { Int($0.value) }
        let modulus = allDigits ? 10 : 1_000
        func step(_ a: Int, _ b: Int) -> Int { ((b - a) % modulus + modulus) % modulus }
        let steps = zip(values, values.dropFirst()).map(step)
        return steps.allSatisfy { $0 == 1 } || steps.allSatisfy { $0 == modulus - 1 }
    }
}
