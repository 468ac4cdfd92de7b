import Foundation
import GangwayPolicy

/// Every bound the API document states, named once: what the server checks, what the
/// clients and the commands check before they send, and what `openapi.json` says. A test
/// reads each bound of the document and holds it to ``document``, so a bound cannot be
/// added, or changed, on one side only.
///
/// Lengths count Unicode scalars, as JSON Schema counts a string's length.
public enum APILimits {
    /// An app's, device's, registration's or entity's ID, an entity set's name, a device
    /// platform, a device cookie: ``EntityLimits/identifierLength``.
    public static let identifier = EntityLimits.identifierLength
    /// A user name.
    public static let username = 1...128
    /// The start of a user name searched for, or the name a page of users starts after.
    public static let usernamePrefix = 0...username.upperBound
    /// A name people read: an app's, a user's display name, a device's.
    public static let name = 1...128
    /// A password given to sign in (any the user has).
    public static let signInPassword = 1...1024
    /// A password an administrator sets.
    public static let password = 8...1024
    /// An email address, for discovery.
    public static let email = 3...320
    /// An email domain an app serves.
    public static let emailDomain = 3...253
    /// The email domains of one app.
    public static let emailDomains = 0...100
    /// An app version a device reports for the version check.
    public static let version = 1...49
    /// An app's minimum version; empty clears it.
    public static let minimumVersion = 0...49
    /// The app version a device registers with.
    public static let appVersion = 1...32
    /// A licence agreement's or consent's version; empty: none.
    public static let agreementVersion = 0...64
    /// How many days a signed activation link or QR code is valid.
    public static let activationValidDays = 1...365
    /// An operator of the console's name.
    public static let operatorName = 1...64
    /// How many records one admin listing returns.
    public static let listLimit = 1...1000
    /// How many of each kind the overview's attention list names (all are counted).
    public static let attentionListed = 0...10
    /// A log entry's message.
    public static let logMessage = 0...4096
    /// What an audit event says changed: a long list of changed settings is cut short.
    public static let auditDetail = 0...1000
    /// A log entry's source.
    public static let logSource = 0...128
    /// The entries of one log upload.
    public static let logEntries = 0...10_000
    /// The most log entries an app's settings allow in one upload.
    public static let logEntriesPerUpload = 1...10_000
    /// The refused lines an ingest batch keeps and reports; the rest are counted.
    public static let ingestRefusals = 0...1_000
    /// The refused rows a data source's read keeps and reports; the rest are counted.
    public static let dataSourceRefusals = 0...100
    /// A change's ID: a UUID, in lower case.
    public static let changeID = 36...36
    /// A data source's path under its destination's URL.
    public static let dataSourcePath = 1...512
    /// How often a data source is read, in seconds: a minute to a week.
    public static let dataSourceEverySeconds = 60...604_800
    /// How often devices upload logs: ``LogUploadSchedule/intervalSeconds``.
    public static let logUploadIntervalSeconds = LogUploadSchedule.intervalSeconds
    /// Days out of contact before a device is blocked, or wiped; 0: never.
    public static let disconnectedDays = 0...3650
    /// How many days removals of entities are remembered (`removalsKeptDays`).
    public static let removalsKeptDays = 1...3650
    /// An OpenID provider's issuer URL.
    public static let issuer = 1...2048
    /// A person's subject at their provider.
    public static let subject = 1...255
    /// The client ID the server has at an app's provider.
    public static let clientID = 1...255
    /// The name of a claim of a provider's ID token that sets a user attribute
    /// (`attributeClaims`).
    public static let claimName = 1...64
    /// Its client secret.
    public static let clientSecret = 1...4096
    /// One redirect URI of an app's OAuth clients, and how many an app has.
    public static let redirectURI = 0...512
    public static let redirectURIs = 0...10
    /// The fields of an entity an administrator puts: ``EntityLimits/fieldsPerEntity``.
    public static let entityFields = 0...EntityLimits.fieldsPerEntity
    /// The fields one change sets.
    public static let changeFields = 1...EntityLimits.fieldsPerEntity
    /// A field's value: ``EntityLimits/valueLength``.
    public static let fieldValue = EntityLimits.valueLength
    /// A field's name: ``EntityLimits/fieldNameLength``.
    public static let fieldName = EntityLimits.fieldNameLength
    /// A destination's name: an identifier.
    public static let destinationName = identifier
    /// A destination's base URL.
    public static let destinationURL = 1...2048
    /// The header a destination's fixed credential goes in, and the credential.
    public static let credentialHeader = 1...64
    public static let credential = 1...4096
    /// An HTTP status a destination answered, or 0 when it could not be reached.
    public static let destinationStatus = 0...599
    /// The fields devices may write in one entity set.
    public static let writableFields = 0...EntityLimits.fieldsPerEntity
    /// The fields of an entity set's schema.
    public static let schemaFields = 1...EntityLimits.fieldsPerEntity
    /// The attributes of one user (``EntitySubset``), and the values of one.
    public static let userAttributes = 0...16
    public static let attributeValues = 0...100
    /// One value of a user's attribute: it is compared with entities' field values.
    public static let attributeValue = 1...EntityLimits.valueLength.upperBound
    /// The entity sets of one app's data settings.
    public static let entitySets = 0...100
    /// How many entities and removals one page of a sync holds (`syncAppData`).
    public static let syncPage = 1...5000
    /// How many seconds a sync waits for a change (`wait`): below the clients' own timeout
    /// (20 seconds), so a wait never looks like a silent server.
    public static let syncWait = 1...15
    /// A sync's cursor, as the server writes it.
    public static let syncCursor = 1...64
    /// The changes of one upload: ``EntityLimits/changesPerUpload``.
    public static let changesPerUpload = 1...EntityLimits.changesPerUpload
    /// One sealed change in base64url: its encapsulated key and tag at the least.
    public static let sealedChange = 88...400_000
    /// The admin proof's challenge: 32 bytes in base64url.
    public static let adminChallenge = 43...43
    /// A version or sequence number: 1 and up.
    public static let positive = 1...Int.max
    /// Seconds to wait, in an error document.
    public static let retryAfterSeconds = 0...Int.max

    /// What one bound of the document limits.
    public enum Measure: String, Sendable, Hashable, CaseIterable {
        /// A string's length (`minLength`, `maxLength`).
        case length
        /// A number (`minimum`, `maximum`).
        case value
        /// An array's items (`minItems`, `maxItems`).
        case items
        /// An object's members (`minProperties`, `maxProperties`).
        case members
    }

    /// One bound of the document: where it is, what it limits, and the range. A bound
    /// the document gives on one side only has the other end open (0 below for a length or
    /// a count, `Int.max` above).
    public struct Bound: Sendable, Hashable {
        /// The JSON pointer of the schema that states it.
        public let pointer: String
        public let measure: Measure
        public let range: ClosedRange<Int>

        public init(pointer: String, measure: Measure, range: ClosedRange<Int>) {
            self.pointer = pointer
            self.measure = measure
            self.range = range
        }
    }

    /// Every bound of `openapi.json`, by the pointer of the schema that states it.
    public static let document: [Bound] = {
        let schemas = "/components/schemas/"
        func property(_ schema: String, _ name: String) -> String { schemas + schema + "/properties/" + name }
        func parameter(_ path: String, _ method: String, _ index: Int) -> String {
            "/paths/" + path.replacingOccurrences(of: "/", with: "~1") + "/\(method)/parameters/\(index)/schema"
        }
        var bounds: [Bound] = []
        func add(_ pointer: String, _ measure: Measure, _ range: ClosedRange<Int>) {
            bounds.append(Bound(pointer: pointer, measure: measure, range: range))
        }
        add(parameter("/discovery", "get", 0), .length, email)
        add(parameter("/apps/{appID}/version-check", "get", 1), .length, version)
        add(parameter("/apps/{appID}/devices/{deviceID}", "put", 1), .length, identifier)
        add(parameter("/admin/apps/{appID}/devices/{registrationID}", "patch", 1), .length, identifier)
        add(parameter("/admin/apps/{appID}/devices", "get", 1), .length, usernamePrefix)
        add(parameter("/admin/apps/{appID}/devices", "get", 3), .length, identifier)
        add(parameter("/admin/apps/{appID}/devices", "get", 4), .value, listLimit)
        add(parameter("/admin/apps/{appID}/activations", "post", 1), .value, activationValidDays)
        add(parameter("/admin/apps/{appID}/activation-qr", "get", 1), .value, activationValidDays)
        add(parameter("/admin/apps/{appID}/logs", "get", 1), .value, listLimit)
        add(parameter("/admin/apps/{appID}/logs", "get", 2), .length, username)
        add(parameter("/admin/apps/{appID}/logs", "get", 6), .value, positive)
        add(parameter("/admin/apps/{appID}/changes", "get", 1), .value, listLimit)
        add(parameter("/admin/apps/{appID}/deliveries", "get", 1), .value, listLimit)
        add("/components/parameters/ChangeID/schema", .length, changeID)
        add(parameter("/admin/apps/{appID}/data/{entitySet}", "get", 2), .length, identifier)
        add(parameter("/admin/apps/{appID}/data/{entitySet}", "get", 3), .value, listLimit)
        add(parameter("/apps/{appID}/data/{entitySet}/changes", "get", 2), .length, syncCursor)
        add(parameter("/apps/{appID}/data/{entitySet}/changes", "get", 3), .value, syncPage)
        add(parameter("/apps/{appID}/data/{entitySet}/changes", "get", 4), .value, syncWait)
        add(parameter("/admin/users", "get", 0), .length, usernamePrefix)
        add(parameter("/admin/users", "get", 1), .length, usernamePrefix)
        add(parameter("/admin/users", "get", 2), .length, usernamePrefix)
        add(parameter("/admin/users", "get", 3), .value, listLimit)
        add(parameter("/admin/users/{username}", "get", 0), .length, username)
        add(parameter("/admin/users/{username}", "patch", 0), .length, username)
        add(parameter("/admin/users/{username}/sessions", "delete", 0), .length, username)
        for method in ["get", "post", "delete"] {
            add(parameter("/admin/users/{username}/identities", method, 0), .length, username)
        }
        add(parameter("/admin/users/{username}/identities", "delete", 1), .length, issuer)
        add(parameter("/admin/users/{username}/identities", "delete", 2), .length, subject)
        add(parameter("/admin/operators/{name}/identities", "delete", 1), .length, issuer)
        add(parameter("/admin/operators/{name}/identities", "delete", 2), .length, subject)
        add(parameter("/admin/audit", "get", 0), .value, listLimit)
        add(parameter("/admin/audit", "get", 1), .value, positive)
        add(parameter("/admin/audit", "get", 2), .length, username)
        add(parameter("/admin/audit", "get", 3), .length, identifier)
        add("/components/parameters/OperatorName/schema", .length, operatorName)
        add("/components/parameters/DestinationName/schema", .length, destinationName)
        add(property("DestinationChange", "url"), .length, destinationURL)
        add(property("DestinationChange", "credentialHeader"), .length, credentialHeader)
        add(property("DestinationChange", "credential"), .length, credential)
        add(property("DestinationRequestCount", "status"), .value, destinationStatus)
        add(property("OperatorCreate", "name"), .length, operatorName)
        add(property("DataSourceChange", "destination"), .length, destinationName)
        add(property("DataSourceChange", "path"), .length, dataSourcePath)
        add(property("DataSourceChange", "keyProperty"), .length, fieldName)
        add(property("DataSourceChange", "everySeconds"), .value, dataSourceEverySeconds)
        add(property("DataSourceRun", "refusals"), .items, dataSourceRefusals)
        for name in ["AppID", "AppFilter", "EntitySet", "EntityID", "BatchID"] {
            add("/components/parameters/\(name)/schema", .length, identifier)
        }
        for response in ["TooManyRequests", "Unavailable"] {
            add("/components/responses/\(response)/headers/Retry-After/schema", .value, positive)
        }

        add(property("Error", "retryAfterSeconds"), .value, retryAfterSeconds)
        add(property("AppConfiguration", "appID"), .length, identifier)
        add(property("SignInRequest", "username"), .length, username)
        add(property("SignInRequest", "password"), .length, signInPassword)
        add(property("SignInRequest", "deviceID"), .length, identifier)
        add(property("SignInRequest", "deviceCookie"), .length, identifier)
        let policy = PasscodePolicy.Limits.self
        add(property("PasswordPolicy", "passwordPolicyMinLength"), .value, policy.minimumLength)
        add(property("PasswordPolicy", "passwordPolicyMinUniqueChars"), .value, policy.minimumUniqueCharacters)
        add(property("PasswordPolicy", "passwordPolicyRetryLimit"), .value, policy.retryLimit)
        add(property("PasswordPolicy", "passwordPolicyLockTimeout"), .value, policy.lockTimeoutSeconds)
        add(property("PasswordPolicy", "passwordPolicyExpiresInNDays"), .value, policy.expiresAfterDays)
        add(property("PasswordPolicy", "passwordPolicyHistorySize"), .value, policy.historyCount)
        add(property("BlockWipingPolicy", "blockDisconnectedPeriod"), .value, disconnectedDays)
        add(property("BlockWipingPolicy", "wipeDisconnectedPeriod"), .value, disconnectedDays)
        add(property("LogSettings", "maxEntriesPerUpload"), .value, logEntriesPerUpload)
        add(property("DataSettings", "removalsKeptDays"), .value, removalsKeptDays)
        add(property("LogSettings", "uploadIntervalSeconds"), .value, logUploadIntervalSeconds)
        add(property("ConsentSettings", "eulaVersion"), .length, agreementVersion)
        add(property("ConsentSettings", "consentVersion"), .length, agreementVersion)
        add(property("DeviceRegistrationRequest", "deviceName"), .length, name)
        add(property("DeviceRegistrationRequest", "platform"), .length, identifier)
        add(property("DeviceRegistrationRequest", "appVersion"), .length, appVersion)
        add(property("LogEntry", "message"), .length, logMessage)
        add(property("AuditEvent", "detail"), .length, auditDetail)
        add(property("LogEntry", "source"), .length, logSource)
        add(property("LogUpload", "entries"), .items, logEntries)
        add(property("IngestReport", "refusals"), .items, ingestRefusals)
        add(property("App", "appID"), .length, identifier)
        for schema in ["AppCreate", "AppUpdate"] {
            if schema == "AppCreate" { add(property(schema, "appID"), .length, identifier) }
            add(property(schema, "name"), .length, name)
            add(property(schema, "emailDomains"), .items, emailDomains)
            add(property(schema, "emailDomains") + "/items", .length, emailDomain)
            add(property(schema, "minimumVersion"), .length, minimumVersion)
        }
        add(property("UserCreate", "username"), .length, username)
        for schema in ["UserCreate", "UserUpdate"] {
            add(property(schema, "password"), .length, password)
            add(property(schema, "displayName"), .length, name)
        }
        add(property("Entity", "version"), .value, positive)
        add(property("Entity", "position"), .value, positive)
        add(property("RemovedEntity", "position"), .value, positive)
        add(property("EntityChanges", "cursor"), .length, syncCursor)
        add(property("EntityPut", "fields"), .members, entityFields)
        add(property("EntityPut", "fields") + "/propertyNames", .length, fieldName)
        add(property("EntityPut", "fields") + "/additionalProperties", .length, fieldValue)
        add(property("AdminChallenge", "challenge"), .length, adminChallenge)
        add(property("EntitySetSettings", "writableFields"), .items, writableFields)
        add(property("EntitySetSettings", "writableFields") + "/items", .length, fieldName)
        add(property("DataSettings", "entitySets"), .members, entitySets)
        add(property("DataSettings", "entitySets") + "/propertyNames", .length, identifier)
        add(property("EntityField", "name"), .length, fieldName)
        add(property("EntitySchema", "fields"), .items, schemaFields)
        add(property("EntitySubset", "field"), .length, fieldName)
        add(property("EntitySubset", "attribute"), .length, fieldName)
        for schema in ["User", "UserUpdate"] {
            add(property(schema, "attributes"), .members, userAttributes)
            add(property(schema, "attributes") + "/propertyNames", .length, fieldName)
            add(property(schema, "attributes") + "/additionalProperties", .items, attributeValues)
            add(property(schema, "attributes") + "/additionalProperties/items", .length, attributeValue)
        }
        add(property("EntitySchemas", "entitySets") + "/propertyNames", .length, identifier)
        add(property("SettingsExchangeBody", "entitySchemas") + "/propertyNames", .length, identifier)
        for field in ["registrationID", "author", "entitySet", "entityID"] {
            add(property("Change", field), .length, identifier)
        }
        add(property("Change", "sequence"), .value, positive)
        add(property("Change", "baseVersion"), .value, positive)
        add(property("Change", "fields"), .members, changeFields)
        add(property("Change", "fields") + "/additionalProperties", .length, fieldValue)
        add(property("SealedChangeUpload", "sealed"), .items, changesPerUpload)
        add(property("SealedChangeUpload", "sealed") + "/items", .length, sealedChange)
        for schema in ["AppAuthentication", "AppAuthenticationChange"] {
            add(property(schema, "redirectURIs"), .items, redirectURIs)
            add(property(schema, "redirectURIs") + "/items", .length, redirectURI)
        }
        add(property("IdentityProviderChange", "issuer"), .length, issuer)
        add(property("IdentityProviderChange", "clientID"), .length, clientID)
        add(property("IdentityProviderChange", "clientSecret"), .length, clientSecret)
        for schema in ["IdentityProvider", "IdentityProviderChange"] {
            add(property(schema, "attributeClaims"), .members, userAttributes)
            add(property(schema, "attributeClaims") + "/propertyNames", .length, fieldName)
            add(property(schema, "attributeClaims") + "/additionalProperties", .length, claimName)
        }
        add(property("IdentityLinkCreate", "issuer"), .length, issuer)
        add(property("IdentityLinkCreate", "subject"), .length, subject)
        add(property("Attention", "blockedUsers"), .items, attentionListed)
        add(property("Attention", "overdueDevices"), .items, attentionListed)
        return bounds
    }()
}
