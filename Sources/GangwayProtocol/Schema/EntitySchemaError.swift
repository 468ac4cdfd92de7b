/// Why a schema, or an entity under one, is refused: a sentence for people that names
/// fields and types, never a value. New codes may be added.
public struct EntitySchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The schema itself breaks a rule: a name, a type, a count.
        public static let invalidSchema = Code(rawValue: "INVALID_SCHEMA")
        /// An entity's fields do not fit the schema.
        public static let fieldNotValid = Code(rawValue: "FIELD_NOT_VALID")

        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String
    /// The fields it is about, by name.
    public var fields: [String]

    public init(_ code: Code, _ message: String, fields: [String] = []) {
        self.code = code
        self.message = message
        self.fields = fields
    }

    public var description: String { message }
}
