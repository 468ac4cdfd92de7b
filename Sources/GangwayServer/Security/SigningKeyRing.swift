import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import Synchronization

/// The keys one purpose's tokens are signed with, as the database holds them
/// (``SigningKeyRecord``): at any moment the newest key whose time to sign has come
/// signs, and every key whose publication has not ended is in the key set.
///
/// A rotation (``rotate(at:lead:onlyIfNewestMadeBy:)``) stores a new key, published at
/// once and signing after a lead (``ServerConfiguration/keyPublicationLead``), so a relying
/// party that keeps the key set no longer than the lead has the key before its first
/// token; the key it replaces stays published until the last token it can have signed
/// has expired and a margin for clocks has passed. Every process reads the keys through
/// the read cache, which a rotation's notice empties on PostgreSQL, and each decides which
/// key signs from the time, so all switch at the same moment.
final class SigningKeyRing: Sendable {
    typealias Purpose = Components.Schemas.SigningKeyPurpose

    let purpose: Purpose
    private let storage: ServerStorage
    private let server: ServerKey
    /// The keys opened so far, by `kid`: a key is opened (AES-GCM, then a JWT key set)
    /// once, not for every token.
    private let opened = Mutex<[String: TokenSigner]>([:])

    /// How long a replaced key stays published past the end of the last token it can
    /// have signed: a relying party's clock may run behind the server's.
    static let clockMargin: TimeInterval = 5 * 60

    /// How long the tokens of `purpose` are good for; `nil` for activation links, whose
    /// keys stay in the chain every later link carries (``ActivationKeyChain``).
    static func tokenLifetime(_ purpose: Purpose) -> TimeInterval? {
        switch purpose {
        case .idToken: TokenSigner.lifetime
        case .destination: DestinationIdentity.lifetime
        case .activation: nil
        }
    }

    private init(purpose: Purpose, storage: ServerStorage, server: ServerKey) {
        self.purpose = purpose
        self.storage = storage
        self.server = server
    }

    /// The ring of `purpose`, with a first key made when the database has none: the key
    /// a server of an earlier version kept as the secret `legacyName` if there is one
    /// (it moves, and the secret goes), a new one otherwise. Opens the key that signs, so
    /// a key that cannot be opened stops the start.
    static func load(
        _ purpose: Purpose,
        legacyName: String,
        server: ServerKey,
        storage: ServerStorage,
        at now: Date
    ) async throws -> SigningKeyRing {
        let ring = SigningKeyRing(purpose: purpose, storage: storage, server: server)
        if try await storage.signingKeys(purpose).isEmpty {
            let legacy = try await storage.secret(named: legacyName)
            let bytes =
                try legacy.map { try server.open($0, for: legacyName, plainLength: 32) }
                ?? P256.Signing.PrivateKey().rawRepresentation
            // A first key signs from the start of time: a process whose clock is behind
            // the first one's has a key to sign with too.
            let key = try P256.Signing.PrivateKey(rawRepresentation: bytes)
            _ = try await storage.addFirstSigningKey(
                try ring.record(key, at: now, signsFrom: Date(timeIntervalSince1970: 0))
            )
            if legacy != nil { try await storage.deleteSecret(named: legacyName) }
        }
        _ = try await ring.signer(at: now)
        return ring
    }

    /// The key that signs at `now` (``GangwayServerStorage/SigningKeyRecord/signing(among:at:)``).
    func signer(at now: Date) async throws -> TokenSigner {
        let keys = try await storage.signingKeys(purpose)
        guard let current = SigningKeyRecord.signing(among: keys, at: now) ?? keys.last else {
            throw StorageError(.corrupt, "no \(purpose.rawValue) signing key is stored")
        }
        return try await open(current, among: keys)
    }

    /// The keys in the key set at `now`, newest first: one that will sign, the one that
    /// signs, and older ones whose tokens may still be in date.
    func published(at now: Date) async throws -> [TokenSigner] {
        let keys = try await storage.signingKeys(purpose)
        var signers: [TokenSigner] = []
        for key in keys where key.isPublished(at: now) {
            signers.append(try await open(key, among: keys))
        }
        return signers
    }

    /// Stores a new key, published from `now` and signing from `lead` later; the key it
    /// replaces stays published until the last token it can have signed has expired.
    ///
    /// An activation key signs at once, whatever `lead`, endorsed by the key it replaces,
    /// which stays: a link carries the chain, so a device has no key set to fetch first.
    ///
    /// - Parameters:
    ///   - cutoff: When given, rotates only if the newest key was made at or before it
    ///     (``ScheduledKeyRotation``: the first process due rotates).
    ///   - dropOldest: For activation keys, drops the oldest of the chain.
    /// - Returns: The new key, or `nil` when a key made since `cutoff` is the newest, or
    ///   when another process made an activation key since this one read them.
    /// - Throws: ``ActivationKeyChain/Failure/Code/tooLong`` when the activation keys'
    ///   chain is as long as a link may carry and `dropOldest` is not given.
    func rotate(
        at now: Date,
        lead: Duration,
        onlyIfNewestMadeBy cutoff: Date? = nil,
        dropOldest: Bool = false
    ) async throws -> SigningKeyRecord? {
        let key = P256.Signing.PrivateKey()
        guard let lifetime = Self.tokenLifetime(purpose) else {
            return try await rotateActivation(to: key, at: now, onlyIfNewestMadeBy: cutoff, dropOldest: dropOldest)
        }
        let signsFrom = now.addingTimeInterval(TimeInterval(lead.components.seconds))
        return try await storage.rotateSigningKey(
            to: try record(key, at: now, signsFrom: signsFrom),
            previousPublishedUntil: signsFrom.addingTimeInterval(lifetime + Self.clockMargin),
            onlyIfNewestMadeBy: cutoff
        )
    }

    /// Stores `key` as the newest activation key, endorsed by the newest until now.
    private func rotateActivation(
        to key: P256.Signing.PrivateKey,
        at now: Date,
        onlyIfNewestMadeBy cutoff: Date?,
        dropOldest: Bool
    ) async throws -> SigningKeyRecord? {
        // As stored now, not as cached: the endorsing key must be the newest.
        let keys = try await storage.allSigningKeys().filter { $0.purpose == purpose }
        guard let newest = keys.first else {
            throw StorageError(.corrupt, "no \(purpose.rawValue) signing key is stored")
        }
        guard keys.count < ActivationKeyChain.maximumKeys || dropOldest else {
            throw ActivationKeyChain.Failure(
                .tooLong,
                "the activation key has \(keys.count) generations, as many as a link carries"
            )
        }
        let previous = try await open(newest, among: keys)
        var record = try record(key, at: now, signsFrom: now)
        record.endorsement = try ActivationKeyChain.endorsement(of: key.publicKey, by: previous.key)
        return try await storage.rotateSigningKey(
            to: record,
            previousPublishedUntil: nil,
            onlyIfNewestMadeBy: cutoff,
            onlyIfNewestIs: newest.kid,
            droppingOldest: dropOldest
        )
    }

    /// Every key of the ring, oldest first, opened, with its record.
    func chain() async throws -> [(record: SigningKeyRecord, signer: TokenSigner)] {
        let keys = try await storage.signingKeys(purpose)
        var chain: [(record: SigningKeyRecord, signer: TokenSigner)] = []
        for key in keys.reversed() { chain.append((key, try await open(key, among: keys))) }
        return chain
    }

    /// What a key is sealed for: its row's purpose and `kid`, so a sealed key moved to
    /// another row does not open.
    static func sealPurpose(_ purpose: String, kid: String) -> String {
        "signing-key:\(purpose):\(kid)"
    }

    private func sealPurpose(kid: String) -> String {
        Self.sealPurpose(purpose.rawValue, kid: kid)
    }

    private func record(_ key: P256.Signing.PrivateKey, at now: Date, signsFrom: Date) throws -> SigningKeyRecord {
        let kid = TokenSigner.kid(of: key.publicKey)
        return SigningKeyRecord(
            purpose: purpose,
            kid: kid,
            sealedKey: try server.seal(key.rawRepresentation, for: sealPurpose(kid: kid)),
            createdAt: now,
            signsFrom: signsFrom
        )
    }

    /// `record`'s key, opened once; the keys opened before that are no longer among
    /// `keys` are forgotten.
    private func open(_ record: SigningKeyRecord, among keys: [SigningKeyRecord]) async throws -> TokenSigner {
        if let signer = opened.withLock({ $0[record.kid] }) { return signer }
        let bytes = try server.open(record.sealedKey, for: sealPurpose(kid: record.kid), plainLength: -1)
        let signer = try await TokenSigner(key: try P256.Signing.PrivateKey(rawRepresentation: bytes))
        guard signer.kid == record.kid else {
            throw StorageError(
                .corrupt,
                "the \(purpose.rawValue) signing key \(record.kid) is not the key its ID names"
            )
        }
        let kept = Set(keys.map(\.kid))
        opened.withLock { opened in
            opened = opened.filter { kept.contains($0.key) }
            opened[record.kid] = signer
        }
        return signer
    }
}
