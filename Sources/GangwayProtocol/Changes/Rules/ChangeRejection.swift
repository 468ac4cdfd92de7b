/// Why the server refused a change for good: the change goes to its author's error
/// archive, and is never sent again as it is.
public struct ChangeRejection: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable code; new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The entity set takes no changes from devices.
        public static let entitySetNotWritable = Code(rawValue: "ENTITY_SET_NOT_WRITABLE")
        /// A field the set does not let devices write.
        public static let fieldNotWritable = Code(rawValue: "FIELD_NOT_WRITABLE")
        /// The set does not let devices create entities.
        public static let creationNotAllowed = Code(rawValue: "CREATION_NOT_ALLOWED")
        /// The change edits an entity the server does not have.
        public static let entityNotFound = Code(rawValue: "ENTITY_NOT_FOUND")
        /// The set holds as many entities as it may, or as devices may create.
        public static let entitySetFull = Code(rawValue: "ENTITY_SET_FULL")
        /// The entity the change leaves does not fit its set's ``EntitySchema``: a field
        /// it does not declare, a value not of its field's type, a required field empty.
        public static let fieldNotValid = Code(rawValue: "FIELD_NOT_VALID")
        /// The entity is outside its author's subset of the set (``EntitySubset``), or the
        /// change would move it out.
        public static let outsideSubset = Code(rawValue: "OUTSIDE_SUBSET")
        /// The author created as many entities in the set as one person may
        /// (``EntityLimits/creationsPerAuthor``).
        public static let creationLimitReached = Code(rawValue: "CREATION_LIMIT_REACHED")
        /// The signature is not the author's key's for this change.
        public static let signatureInvalid = Code(rawValue: "SIGNATURE_INVALID")
        /// The author is not the user of the change's registration, or the registration is
        /// not on this device and app.
        public static let authorMismatch = Code(rawValue: "AUTHOR_MISMATCH")
        /// Another change of the author's used this sequence number.
        public static let sequenceReused = Code(rawValue: "SEQUENCE_REUSED")
        /// The author's registration has no key, or was wiped.
        public static let keyRevoked = Code(rawValue: "KEY_REVOKED")
        /// Why a change is held back (``ChangeResult/Outcome/held``), not refused: its author
        /// is blocked, or their registration locked, for now.
        public static let authorHeld = Code(rawValue: "AUTHOR_HELD")
        /// Why a change is held back while the company's backend decides it: its set's
        /// data source delivers devices' changes, and the backend has not answered yet. The
        /// device sends it again; once the backend answers, that is its result.
        public static let delivering = Code(rawValue: "DELIVERING")
        /// An operator discarded the change: the company's backend never decided it.
        public static let discarded = Code(rawValue: "DISCARDED")
        /// The change breaks the format's limits (names, lengths, counts).
        public static let invalidChange = Code(rawValue: "INVALID_CHANGE")
        /// A sealed change the server's key does not open (altered, cut short, or sealed
        /// to another server).
        public static let sealedChangeUnreadable = Code(rawValue: "SEALED_CHANGE_UNREADABLE")

        public var description: String { rawValue }
    }

    public var code: Code
    /// For the author and the admin; names no value of the change.
    public var message: String
    /// The fields it is about, by name (never a value), for a text in another language
    /// than the message's: those a ``Code/fieldNotWritable`` or ``Code/fieldNotValid``
    /// refuses. Empty when it names
    /// none, or the server did not say.
    public var fields: [String]

    public init(_ code: Code, _ message: String, fields: [String] = []) {
        self.code = code
        self.message = message
        self.fields = fields
    }

    public var description: String { "\(code): \(message)" }

    /// The refusal of a change whose entity does not fit its set's schema.
    public init(_ error: EntitySchemaError) {
        self.init(error.code == .fieldNotValid ? .fieldNotValid : .invalidChange, error.message, fields: error.fields)
    }

    private enum CodingKeys: String, CodingKey { case code, message, fields }

    /// Reads one kept before rejections named their fields too.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        message = try container.decode(String.self, forKey: .message)
        fields = try container.decodeIfPresent([String].self, forKey: .fields) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
        if !fields.isEmpty { try container.encode(fields, forKey: .fields) }
    }

    /// Rejections are the same when their codes are: the message is for people.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
