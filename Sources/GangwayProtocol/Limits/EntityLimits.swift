/// The limits of the app's data that the server and devices share.
public enum EntityLimits {
    /// At most this many fields in one entity, and so in one change.
    public static let fieldsPerEntity = 64
    /// The length of a field's value, in characters.
    public static let valueLength = 0...1024
    /// At most this many fields of a set's schema are indexed on devices: each index costs
    /// every write of the set on every device.
    public static let indexedFieldsPerSet = 16
    /// The length of a field's name.
    public static let fieldNameLength = 1...64
    /// At most this many changes in one upload.
    public static let changesPerUpload = 500
    /// At most this many entities in one set: an airline's checks for years, never a
    /// runaway writer's. Each set counts what it holds, so the check costs no count of
    /// its rows, and devices read a set of any size by pages of what changed.
    public static let entitiesPerSet = 10_000_000
    /// A set of more entities than this is never read whole (by a device's `getAppData`):
    /// it is read a page at a time, by what changed (`syncAppData`) or by ID (the admin's
    /// listing), so no read holds a large set in memory.
    public static let entitiesReadWhole = 10_000
    /// Of those, this many only the admin can create: devices fill a set up to
    /// `entitiesPerSet - keptForAdmin`, so the admin's own writes always find room.
    public static let keptForAdmin = 100
    /// At most this many entities one person creates in one set from devices, so no one
    /// fills a set others work in.
    public static let creationsPerAuthor = 200

    /// Whether `name` is a field name: a letter, then letters, digits and `_`.
    public static func isFieldName(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        guard fieldNameLength.contains(scalars.count), let first = scalars.first, first.isASCIILetter else {
            return false
        }
        return scalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The longest line of an ingest batch (NDJSON), in bytes: an entity at the limits
    /// above, every character escaped, fits; a longer line is refused alone, and neither
    /// the server nor `gangway admin data import` holds more of it.
    public static let ingestLineBytes = 1 << 20
    /// Lines an ingest request sends (`gangway admin data import` cuts a file into
    /// batches of this many by default): a request of a few seconds, well within the
    /// server's body timeout.
    public static let ingestBatchLines = 20_000

    /// The length of an entity set's name and of an entity's ID.
    public static let identifierLength = 1...64

    /// Whether `id` names an entity set or an entity, as the API document states
    /// (``IdentifierRule/identifier``).
    public static func isIdentifier(_ id: String) -> Bool { IdentifierRule.identifier.matches(id) }
}
