import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The server's signing keys as an operator sees them (`gangway admin keys`), by `kid`
/// and never the key, and their rotation.
struct SigningKeysHandler: APIHandler {
    let services: APIServices

    func listSigningKeys(_ input: Operations.ListSigningKeys.Input) async throws -> Operations.ListSigningKeys.Output {
        let now = now()
        let keys = try await perform { try await storage.allSigningKeys() }
        let signing = Dictionary(grouping: keys, by: \.purpose).compactMapValues {
            SigningKeyRecord.signing(among: $0, at: now)
        }
        return .ok(
            .init(
                body: .json(
                    keys.filter { $0.isPublished(at: now) }.map {
                        Self.wire($0, signing: signing[$0.purpose], among: keys, at: now)
                    }
                )
            )
        )
    }

    func rotateSigningKey(
        _ input: Operations.RotateSigningKey.Input
    ) async throws -> Operations.RotateSigningKey.Output {
        let ring = keys.ring(input.path.purpose)
        // An activation key signs at once: a link carries what vouches for it.
        let lead =
            input.query.immediately == true || ring.purpose == .activation
            ? .zero : services.settings.keyPublicationLead
        let now = now()
        let dropOldest = input.query.dropOldest == true
        // A state's refusal, not the request's: the document cannot tie a query to a path.
        guard !dropOldest || ring.purpose == .activation else {
            throw APIError(
                .conflict,
                .conflict,
                "dropOldest is for the activation key alone: a token key stays published until its tokens expire."
            )
        }
        if ring.purpose == .activation, !dropOldest {
            let keys = try await perform { try await storage.allSigningKeys() }
            guard keys.count(where: { $0.purpose == .activation }) < ActivationKeyChain.maximumKeys else {
                throw APIError(
                    .conflict,
                    .limitReached,
                    "The activation key's chain holds \(ActivationKeyChain.maximumKeys) keys, as many as a link "
                        + "carries: drop the oldest with the rotation (dropOldest; gangway admin keys rotate activation "
                        + "--drop-oldest), and devices that pinned only that key will need a newer one."
                )
            }
        }
        let rotated = try await perform { try await ring.rotate(at: now, lead: lead, dropOldest: dropOldest) }
        guard let key = rotated else {
            throw APIError.storage(StorageError(.unavailable, "the key was not rotated: another process rotated it"))
        }
        logger.notice(
            "signing key rotated",
            metadata: [
                "purpose": "\(key.purpose.rawValue)", "kid": "\(key.kid)", "signs_from": "\(key.signsFrom)",
                "source": "operator",
            ]
        )
        return .created(.init(body: .json(Self.wire(key, signing: lead == .zero ? key : nil, at: now))))
    }

    /// `key` as the API shows it at `now`, when `signing` is the key of its purpose that
    /// signs then: next only when it will sign once its time comes, which a key made
    /// after it takes from it for good when that key signs already (rotated at once) or
    /// will sign no later than it (`keys`: the server's keys).
    static func wire(
        _ key: SigningKeyRecord,
        signing: SigningKeyRecord?,
        among keys: [SigningKeyRecord] = [],
        at now: Date
    ) -> Components.Schemas.SigningKey {
        let overtaken = keys.contains {
            $0.purpose == key.purpose && $0.generation > key.generation && $0.signsFrom <= key.signsFrom
        }
        let isNext =
            key.signsFrom > now && !overtaken && signing.map { key.generation > $0.generation } ?? true
        return .init(
            purpose: key.purpose,
            kid: key.kid,
            state: key.kid == signing?.kid ? .signing : isNext ? .next : .published,
            createdAt: key.createdAt,
            signsFrom: key.signsFrom,
            publishedUntil: key.publishedUntil
        )
    }
}
