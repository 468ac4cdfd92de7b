import Foundation

/// Base32 (RFC 4648 §6) without padding: how authenticator apps take a TOTP secret.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func encode(_ data: Data) -> String {
        var text = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1f)])
            }
        }
        if bits > 0 { text.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1f)]) }
        return text
    }

    /// The bytes of `text` (case and spaces ignored, padding allowed), or `nil` when it
    /// holds a character base32 has not.
    public static func decode(_ text: String) -> Data? {
        var data = Data()
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased() where character != " " && character != "=" {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                data.append(UInt8((buffer >> UInt32(bits)) & 0xff))
            }
        }
        return data
    }

    /// `text` in groups of four, for a person to type.
    public static func grouped(_ text: String) -> String {
        stride(from: 0, to: text.count, by: 4).map { start in
            let from = text.index(text.startIndex, offsetBy: start)
            return String(text[from..<(text.index(from, offsetBy: 4, limitedBy: text.endIndex) ?? text.endIndex)])
        }.joined(separator: " ")
    }
}
