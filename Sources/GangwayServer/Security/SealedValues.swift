import Foundation
import GangwayConsole
import GangwayServerStorage

/// Every value the server keeps sealed under its key (``ServerKey``), where it is kept
/// and what it is sealed for: what ``ServerKeyReplacement`` seals anew. A new kind of
/// sealed value is added here, or a replacement leaves it sealed under a key that is
/// gone (a test reads the schema for columns that look sealed and are not here).
enum SealedValues {
    /// A column of sealed values, and what each row's value is sealed for.
    struct Column: Sendable {
        var column: SealedColumn
        /// What the value of `row` (its ``GangwayServerStorage/SealedColumn/keys``) is
        /// sealed for.
        var purpose: @Sendable (SQLRow) throws -> String
        /// The length of a value kept before values of its kind were sealed, which is
        /// read as it is; -1 where there never were such values.
        var plainLength: Int
    }

    /// The secrets (`secrets`, by name) that are sealed, and the length of their values
    /// from before they were: the activation key, the change sealing key, and the token
    /// keys a server before rotation kept (moved to the signing keys at its next start).
    static let secrets: [(name: String, plainLength: Int)] = [
        (ServerKeys.StoredName.activation, 32), (ServerKeys.StoredName.changeSealing, -1),
        (ServerKeys.StoredName.idTokens, 32), (ServerKeys.StoredName.destinationTokens, 32),
    ]

    static let columns: [Column] = [
        Column(
            column: SealedColumn(table: "signing_keys", column: "sealed_key", keys: ["purpose", "kid"]),
            purpose: { row in SigningKeyRing.sealPurpose(try row("purpose"), kid: try row("kid")) },
            plainLength: -1
        ),
        Column(
            column: SealedColumn(table: "devices", column: "recovery_secret", keys: ["registration_id"]),
            purpose: { row in DevicesHandler.recoveryPurpose(registrationID: try row("registration_id")) },
            plainLength: 32
        ),
        Column(
            column: SealedColumn(table: "operators", column: "totp_secret", keys: ["name"]),
            purpose: { _ in OperatorConsole.totpPurpose },
            plainLength: TOTP.secretLength
        ),
        Column(
            column: SealedColumn(
                table: "provider_grants",
                column: "sealed_refresh_token",
                keys: ["origin_hash", "app_id"]
            ),
            purpose: { row in FederationHandler.providerTokenPurpose(appID: try row("app_id")) },
            plainLength: -1
        ),
        Column(
            column: SealedColumn(table: "destinations", column: "credential", keys: ["app_id", "name"]),
            purpose: { row in
                DestinationsHandler.destinationCredentialPurpose(appID: try row("app_id"), name: try row("name"))
            },
            plainLength: -1
        ),
    ]
}
