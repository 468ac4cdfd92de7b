import Foundation

extension Change {
    /// The bytes an author signs: every part of the change, each length-prefixed, in a
    /// fixed order, fields sorted by name, under a label that names the format. Two
    /// different changes never have the same bytes, and a signature made for another
    /// purpose never verifies as a change's.
    public var signedBytes: Data {
        var bytes = Data()
        func append(_ text: String) {
            let utf8 = Data(text.utf8)
            append(Int64(utf8.count))
            bytes.append(utf8)
        }
        func append(_ number: Int64) {
            withUnsafeBytes(of: number.bigEndian) { bytes.append(contentsOf: $0) }
        }
        append(Self.signatureLabel)
        append(id.uuidString.lowercased())
        append(registrationID)
        append(author)
        append(sequence)
        append(entitySet)
        append(entityID)
        if let baseVersion {
            bytes.append(1)
            append(baseVersion)
        } else {
            bytes.append(0)
        }
        append(Int64(madeAt.timeIntervalSince1970.rounded(.down)))
        append(Int64(fields.count))
        for name in fields.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            append(name)
            append(fields[name]!)
        }
        return bytes
    }

    /// The label that starts ``signedBytes``; a new format gets a new label.
    static let signatureLabel = "gangway.change.v1"
}
