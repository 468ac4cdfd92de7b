/// The stable, machine-readable `code` of every error document the mobile-services API
/// answers with (the `Error` schema of `openapi.json`, whose `enum` a test holds to this
/// list): the server answers only with these, and clients switch on them.
///
/// A client reading a code it does not know (a newer server) gets `nil` from
/// `ErrorCode(rawValue:)` and goes by the HTTP status; OAuth endpoints answer with RFC 6749
/// error documents instead, and a refused offline change with a `ChangeRejection` code.
public enum ErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    // Requests the server cannot read.
    /// The request is malformed in a way no other code names.
    case badRequest = "BAD_REQUEST"
    /// A field is missing, of the wrong type, or outside its bounds.
    case invalidField = "INVALID_FIELD"
    /// A text holds a character the server cannot store (a NUL).
    case invalidText = "INVALID_TEXT"
    /// An email address is not one.
    case invalidEmail = "INVALID_EMAIL"
    /// A password is outside 8 to 1024 characters.
    case invalidPassword = "INVALID_PASSWORD"
    /// An email domain is not a domain.
    case invalidDomain = "INVALID_DOMAIN"
    /// A version is not `MAJOR.MINOR[.PATCH]`.
    case invalidVersion = "INVALID_VERSION"
    /// A setting is outside its bounds.
    case invalidSetting = "INVALID_SETTING"
    /// A device's change key is not a P-256 public key.
    case invalidChangeKey = "INVALID_CHANGE_KEY"
    /// Settings that each pass their bounds contradict each other.
    case conflictingSettings = "CONFLICTING_SETTINGS"
    /// A batch holds more entries than one request may.
    case tooManyEntries = "TOO_MANY_ENTRIES"
    /// The body is larger than the route takes.
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    /// The body is not of a media type the route takes.
    case unsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
    /// The route exists, not with this method.
    case methodNotAllowed = "METHOD_NOT_ALLOWED"

    // Who is asking.
    /// No bearer token, or one the server does not know.
    case unauthorized = "UNAUTHORIZED"
    /// The session expired; sign in again.
    case tokenExpired = "TOKEN_EXPIRED"
    /// An admin route without a valid admin token.
    case adminTokenRequired = "ADMIN_TOKEN_REQUIRED"
    /// An operator whose role does not reach the operation's (its `x-minimum-role`).
    case roleRequired = "ROLE_REQUIRED"
    /// Wrong user name or password (also for a blocked or unknown user: the answer tells
    /// an attacker nothing).
    case authFailed = "AUTH_FAILED"
    /// Too many failed sign-ins; `retryAfterSeconds` says how long to wait.
    case authThrottled = "AUTH_THROTTLED"
    /// The app signs people in with OAuth 2.0, not with a password.
    case oauth2Required = "OAUTH2_REQUIRED"
    /// An OAuth-only operation on an app that signs in with passwords.
    case notOAuth2 = "NOT_OAUTH2"
    /// The session belongs to another device than the one named.
    case deviceMismatch = "DEVICE_MISMATCH"
    /// An administrator locked this registration: it is refused, signing in on it included,
    /// until an administrator unlocks it (also sent as the `x-message-code` header, as the
    /// reference system does).
    case registrationLocked = "TRAFFIC_REG_LOCKED"
    /// An administrator wiped this registration: the device erases the user's data.
    case registrationWiped = "TRAFFIC_REG_WIPED"
    /// The device must register before reading the app's data or uploading logs.
    case deviceNotRegistered = "DEVICE_NOT_REGISTERED"
    /// The device's recovery secret was given out too often.
    case recoveryThrottled = "RECOVERY_THROTTLED"
    /// The app takes no log uploads now.
    case logUploadDisabled = "LOG_UPLOAD_DISABLED"
    /// The device uploaded logs too often.
    case logUploadThrottled = "LOG_UPLOAD_THROTTLED"

    // What is asked for.
    /// The route or thing does not exist.
    case notFound = "NOT_FOUND"
    /// There is no app with this ID.
    case appNotFound = "APP_NOT_FOUND"
    /// There is no user with this name.
    case userNotFound = "USER_NOT_FOUND"
    /// There is no such device registration.
    case deviceNotFound = "DEVICE_NOT_FOUND"
    /// There is no such entity in the app's data.
    case entityNotFound = "ENTITY_NOT_FOUND"
    /// The entity set has no schema: it takes any field names with text values.
    case schemaNotFound = "SCHEMA_NOT_FOUND"
    /// The identity is not linked to the user.
    case identityNotLinked = "IDENTITY_NOT_LINKED"
    /// There is no operator of the console with this name.
    case operatorNotFound = "OPERATOR_NOT_FOUND"
    /// The app has no destination of this name.
    case destinationNotFound = "DESTINATION_NOT_FOUND"
    /// The entity set has no data source.
    case dataSourceNotFound = "DATA_SOURCE_NOT_FOUND"
    /// No change of this ID waits for the company's backend.
    case deliveryNotFound = "DELIVERY_NOT_FOUND"
    /// No app serves this email domain.
    case domainUnknown = "DOMAIN_UNKNOWN"
    /// The text is longer than a QR code holds.
    case qrUnavailable = "QR_UNAVAILABLE"

    // Conflicts with what exists.
    /// It exists already.
    case conflict = "CONFLICT"
    /// An app with this ID exists already.
    case appExists = "APP_EXISTS"
    /// A user with this name exists already.
    case userExists = "USER_EXISTS"
    /// Another app serves this email domain already.
    case domainTaken = "DOMAIN_TAKEN"
    /// The identity is linked to another user already.
    case identityLinked = "IDENTITY_LINKED"
    /// An operator with this name exists already.
    case operatorExists = "OPERATOR_EXISTS"
    /// The server's limit for this kind of data is reached.
    case limitReached = "LIMIT_REACHED"
    /// The entity set holds as many entities as it may.
    case entitySetFull = "ENTITY_SET_FULL"
    /// The entity set holds too many entities to be read whole: sync it a page at a time.
    case entitySetTooLarge = "ENTITY_SET_TOO_LARGE"
    /// A sync's cursor is older than the removals the server keeps, or newer than its
    /// data: read the entity set again from the start.
    case cursorExpired = "CURSOR_EXPIRED"
    /// Entities of the set do not fit the schema given: the message says how many, and
    /// why the first does not.
    case schemaChangeRefused = "SCHEMA_CHANGE_REFUSED"
    /// The ingest batch's ID was sent before with other lines: send these under a new ID.
    case ingestBatchChanged = "INGEST_BATCH_CHANGED"
    /// Another request is sending the same ingest batch: send it again once that one
    /// has ended.
    case ingestBatchBusy = "INGEST_BATCH_BUSY"

    // The server itself.
    /// The server is checking too many sign-ins; try again shortly.
    case serverBusy = "SERVER_BUSY"
    /// The server's database is not available; try again.
    case storageUnavailable = "STORAGE_UNAVAILABLE"
    /// The destination's backend could not be reached, or did not answer in time.
    case destinationUnavailable = "DESTINATION_UNAVAILABLE"
    /// The person has as many requests under way to the destination as one may; one
    /// must end first.
    case destinationBusy = "DESTINATION_BUSY"
    /// The caller is sending as many large bodies at once as one may; one must end first.
    case tooManyBodies = "TOO_MANY_BODIES"
    /// The demo data could not be seeded.
    case seedFailed = "SEED_FAILED"
    /// Something failed on the server; its log says what.
    case `internal` = "INTERNAL"
}
