/// An app's data: the changes devices uploaded (who made each, whose session carried it,
/// how it ended: a conflict with both values, a refusal with its reason), and the entities
/// of one entity set as the server holds them.
public struct DataPage: ConsolePage {
    public struct Change: Sendable {
        public var received: String
        public var entity: String
        public var author: String
        public var carrier: String
        public var outcome: String
        /// For a conflict, each field the server kept with both values; for a refusal,
        /// its reason.
        public var details: [String]

        public init(
            received: String,
            entity: String,
            author: String,
            carrier: String,
            outcome: String,
            details: [String]
        ) {
            self.received = received
            self.entity = entity
            self.author = author
            self.carrier = carrier == author ? "" : carrier
            self.outcome = outcome
            self.details = details
        }
    }

    public struct Entity: Sendable {
        public var id: String
        public var version: String
        public var updated: String
        public var fields: String

        public init(id: String, version: Int64, updatedBy: String, updatedAt: String, fields: [String: String]) {
            self.id = id
            self.version = String(version)
            updated = "\(updatedAt) by \(updatedBy)"
            self.fields = fields.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "; ")
        }
    }

    /// One field of the set's schema, as shown.
    public struct SchemaField: Sendable {
        public var name: String
        public var type: String
        public var required: String
        public var indexed: String

        public init(name: String, type: String, required: Bool, indexed: Bool) {
            self.name = name
            self.type = type
            self.required = required ? "yes" : ""
            self.indexed = indexed ? "yes" : ""
        }
    }

    /// The set's data source, as shown: where it reads from, how its last read went.
    public struct Source: Sendable {
        public var reads: String
        public var every: String
        public var lastRun: String
        public var nextRun: String
        /// Why the last read stopped, or why it became a full one.
        public var problem: String?
        /// The rows the last read refused, `row N (ID): CODE: why` each.
        public var refusals: [String]
        public var hasRefusals: Bool

        public init(
            reads: String,
            every: String,
            lastRun: String,
            nextRun: String,
            problem: String?,
            refusals: [String]
        ) {
            self.reads = reads
            self.every = every
            self.lastRun = lastRun
            self.nextRun = nextRun
            self.problem = problem
            self.refusals = refusals
            hasRefusals = !refusals.isEmpty
        }
    }

    /// A device's change waiting for the company's backend, as shown.
    public struct Delivery: Sendable {
        public var changeID: String
        public var entity: String
        public var author: String
        public var received: String
        public var fields: String
        public var state: String

        public init(
            changeID: String,
            entity: String,
            author: String,
            received: String,
            fields: [String],
            state: String
        ) {
            self.changeID = changeID
            self.entity = entity
            self.author = author
            self.received = received
            self.fields = fields.joined(separator: ", ")
            self.state = state
        }
    }

    public var template: String { "data" }
    public let title = "Data"
    public var signedIn: SignedInOperator?
    public var apps: [ConsoleOption]
    public var appID: String
    public var outcomes: [ConsoleOption]
    public var changes: [Change]
    public var hasChanges: Bool
    public var sets: [ConsoleOption]
    public var entitySet: String
    public var entities: [Entity]
    public var hasEntities: Bool
    /// When the set holds more entities than are shown: how many are (the first by ID).
    public var moreEntities: Int?
    /// The ID the entities shown follow, when the page is not the first.
    public var after: String?
    /// The link to the next entities by ID, when more follow.
    public var nextPage: String?
    /// The link to the first entities, when the page is not the first.
    public var firstPage: String?
    /// Whether the operator may write the app's data (an admin).
    public var canEdit: Bool
    public var formToken: String
    public var error: String?
    /// What the last action did, said at the top: in the server's words, never the query's.
    public var notice: String?
    /// The set's schema, as the server holds it; empty when it has none.
    public var schema: [SchemaField]
    public var hasSchema: Bool
    /// The set's data source, if it has one.
    public var source: Source?
    /// The set's changes waiting for the company's backend.
    public var deliveries: [Delivery] = [] {
        didSet { hasDeliveries = !deliveries.isEmpty }
    }
    public var hasDeliveries = false
    /// The schema being declared, as typed or stored: a field a line.
    public var schemaText: String
    /// Its subset, as typed or stored: `field = attribute`.
    public var subsetText: String
    /// What devices may change in the set shown: its writable fields, as typed or stored.
    public var writableFields: String
    public var allowsCreation: Bool
    /// The entity being put, as typed: its ID and its fields, `name = value` a line.
    public var entityID: String
    public var entityFields: String

    /// What the forms that write the data hold, typed or stored.
    public struct Writing: Sendable {
        public var writableFields: [String]
        public var allowsCreation: Bool
        public var entityID: String
        public var entityFields: String
        /// The schema's fields, `name:type[:required][:indexed]` a line.
        public var schema: String
        /// The schema's subset, `field = attribute`; empty for none.
        public var subset: String

        public init(
            writableFields: [String] = [],
            allowsCreation: Bool = false,
            entityID: String = "",
            entityFields: String = "",
            schema: String = "",
            subset: String = ""
        ) {
            self.subset = subset
            self.writableFields = writableFields
            self.allowsCreation = allowsCreation
            self.entityID = entityID
            self.entityFields = entityFields
            self.schema = schema
        }
    }

    public init(
        signedIn: SignedInOperator,
        apps: [ConsoleOption],
        appID: String,
        outcomes: [ConsoleOption],
        changes: [Change],
        sets: [ConsoleOption],
        entitySet: String,
        entities: [Entity],
        canEdit: Bool = false,
        schema: [SchemaField] = [],
        writing: Writing = Writing(),
        error: String? = nil
    ) {
        self.signedIn = signedIn
        self.apps = apps
        self.appID = appID
        self.outcomes = outcomes
        self.changes = changes
        hasChanges = !changes.isEmpty
        self.sets = sets
        self.entitySet = entitySet
        self.entities = entities
        hasEntities = !entities.isEmpty
        self.canEdit = canEdit
        formToken = signedIn.formToken
        self.error = error
        writableFields = writing.writableFields.joined(separator: ", ")
        allowsCreation = writing.allowsCreation
        entityID = writing.entityID
        entityFields = writing.entityFields
        self.schema = schema
        hasSchema = !schema.isEmpty
        schemaText = writing.schema
        subsetText = writing.subset
    }
}
