import Foundation

extension UUID {
    /// The UUID as Gangway writes it everywhere (change IDs, registrations, store
    /// folders): 36 lowercase characters, `8-4-4-4-12` hex digits. The same text as
    /// `uuidString.lowercased()`, written straight from the bytes, since a server writes
    /// several per change it ends.
    public var lowercasedText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = Self.hexDigits[Int(byte >> 4)]
                    text[position + 1] = Self.hexDigits[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
