import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import NIOCore
import NIOHTTP1
import Tracing

extension DataSourceRead {
    /// `link` (absolute, or relative to the page it came on, `current`) as the URL to
    /// read, when it stays under the destination's URL `base`: the same origin, under its
    /// path, with no user information, `.` or `..` segment or encoded slash; its fragment
    /// dropped. A backend's link goes nowhere else, as a device's path cannot.
    static func follow(_ link: String, from current: String, within base: String) throws -> String {
        guard let page = URL(string: current), let resolved = URL(string: link, relativeTo: page)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
            let root = URLComponents(string: base),
            let origin = DestinationsHandler.origin(resolved.absoluteString),
            origin == DestinationsHandler.origin(base), components.user == nil, components.password == nil
        else {
            throw Failure(reason: "A link of the backend's leaves the destination's URL.")
        }
        let rootPath =
            root.percentEncodedPath.hasSuffix("/")
            ? String(root.percentEncodedPath.dropLast()) : root.percentEncodedPath
        let path = components.percentEncodedPath
        let rest = path.dropFirst(rootPath.count)
        guard path.hasPrefix(rootPath), rest.isEmpty || rest.hasPrefix("/"), DestinationProxy.isPlain(String(rest))
        else {
            throw Failure(reason: "A link of the backend's leaves the destination's URL.")
        }
        components.fragment = nil
        guard let kept = components.string else {
            throw Failure(reason: "A link of the backend's leaves the destination's URL.")
        }
        return kept
    }
}

/// One read of an entity set's data source (``GangwayServerStorage/DataSourceRecord``):
/// its OData service read through the source's destination, into the set.
///
/// - A **full read** asks for the entity set with `Prefer: odata.track-changes` and
///   follows `@odata.nextLink` page after page; the last page's `@odata.deltaLink` is
///   kept. Once every page is in, the entities the backend gave before and not in this
///   read are removed, unless a device changed them since (see
///   ``GangwayServerStorage/ServerStorage/pull(_:into:of:run:holdingUntil:limit:by:at:)``).
/// - A **delta read** follows the kept delta link: changed entities and removed ones, page
///   after page, and a new delta link. A delta link the backend refuses (400, 404, 410:
///   expired or unknown) makes the read a full one, at once; a backend that is down or
///   answers 5xx fails the read, the link is kept, and the next read tries it again.
/// - Each page is one transaction; the next page is fetched while one is written. A page
///   is read whole, up to ``pageLimit``; a link to follow must stay under the
///   destination's URL, as a device's path must.
/// - The backend sees the server itself: a destination of identity authentication gets a
///   token for ``subject`` (no person's name can be that), one of credential
///   authentication its fixed credential.
struct DataSourceRead: Sendable {
    let services: APIServices
    /// The app's issuer, for the identity token.
    let issuer: @Sendable (AppRecord) -> String

    /// The largest page read.
    static let pageLimit = 64 << 20
    /// The most rows one read takes: twice the most a set holds, so a backend whose next
    /// links never end fails the read rather than holding it forever.
    static let rowsPerRead = 2 * EntityLimits.entitiesPerSet
    /// The page size asked for (`odata.maxpagesize`); the backend decides.
    static let pageSize = 5_000
    /// How long a read's claim lasts without a page written.
    static let lease: TimeInterval = 120
    /// How long a backend has to answer a page whole.
    static let pageTimeout: TimeAmount = .seconds(60)
    /// Who a read is to the backend (`sub` of its identity token), and who its writes are
    /// by (`updatedBy`).
    static let subject = "gangway:data-source"

    /// Why a read stopped, in words that hold no secret of the backend's.
    struct Failure: Error {
        var reason: String
        /// The backend refused the link itself (a delta link that expired).
        var linkRefused = false
    }

    /// Takes the source's next read and runs it; `nil` when another read holds it, or the
    /// set has no source.
    func run(appID: String, entitySet: String) async -> DataSourceRun? {
        // A trace of its own: no request started it.
        await services.tracer.withSpan(
            "data source read",
            context: .topLevel,
            attributes: { attributes in
                attributes["gangway.app"] = appID
                attributes["gangway.entity_set"] = entitySet
            }
        ) { span in
            let outcome = await read(appID: appID, entitySet: entitySet)
            if let outcome {
                span?.attributes["gangway.read.kind"] = outcome.kind.rawValue
                span?.attributes["gangway.read.rows"] = outcome.rows
                if outcome.error != nil { span?.setStatus(SpanStatus(code: .error)) }
            }
            return outcome
        }
    }

    /// ``run(appID:entitySet:)``, in its span.
    private func read(appID: String, entitySet: String) async -> DataSourceRun? {
        let storage = services.storage
        let started = services.now()
        guard
            let claim = try? await storage.claimPull(
                appID: appID,
                entitySet: entitySet,
                at: started,
                until: started.addingTimeInterval(Self.lease)
            ),
            let source = try? await storage.dataSource(appID: appID, entitySet: entitySet)
        else { return nil }
        var reading = Reading(read: self, source: source, run: claim.run)
        var kind: DataSourceRun.Kind = claim.deltaLink == nil ? .full : .delta
        var fellBack: String?
        var newLink: String?
        var failure: String?
        do {
            try await reading.prepare()
            if let delta = claim.deltaLink {
                do {
                    newLink = try await reading.pages(from: delta)
                } catch let error as Failure where error.linkRefused {
                    fellBack = error.reason
                    kind = .full
                    reading.restart()
                }
            }
            if kind == .full {
                newLink = try await reading.pages(from: reading.entitySetURL)
                // An entity the read could not name may be any of those it did not see.
                guard reading.unnamed == 0 else {
                    throw Failure(
                        reason: "\(reading.unnamed) rows named no entity ID (is the key property right?), so the "
                            + "entities missing from the read were not removed."
                    )
                }
                try await reading.removeUnseen()
            }
        } catch let error as Failure {
            failure = error.reason
        } catch {
            failure = "The set could not be written: the storage is unavailable."
        }
        let outcome = DataSourceRun(
            kind: kind,
            startedAt: started,
            finishedAt: services.now(),
            rows: reading.rows,
            tally: reading.tally,
            error: failure,
            fellBack: fellBack
        )
        let metadata: Logger.Metadata = [
            "app": "\(appID)", "set": "\(entitySet)", "read": "\(kind.rawValue)", "rows": "\(reading.rows)",
            "written": "\(reading.tally.written)", "removed": "\(reading.tally.removed)",
            "refused": "\(reading.tally.refusedCount)",
        ]
        if let failure {
            services.logger.warning(
                "data source read failed",
                metadata: metadata.merging(["reason": "\(failure)"]) { $1 }
            )
        } else {
            services.logger.info("data source read", metadata: metadata)
        }
        do {
            try await storage.finishPull(
                appID: appID,
                entitySet: entitySet,
                run: claim.run,
                outcome: outcome,
                deltaLink: failure == nil ? newLink : nil,
                retryFull: failure != nil && kind == .full,
                at: services.now()
            )
        } catch {
            services.logger.warning(
                "data source read not recorded",
                metadata: ["app": "\(appID)", "set": "\(entitySet)"]
            )
        }
        return outcome
    }
}

extension DataSourceRead {
    /// A read under way: where it is and what it did.
    fileprivate struct Reading {
        let read: DataSourceRead
        let source: DataSourceRecord
        let run: Int64
        var destination: DestinationRecord?
        /// The header each page's request carries: for an identity destination, a token
        /// signed for that page (a token lasts ``DestinationIdentity/lifetime``, a read of
        /// millions of rows longer).
        var authorization: @Sendable () async throws -> (name: String, value: String) = {
            throw Failure(reason: "The read was not prepared.")
        }
        var rows = 0
        var tally = PullTally()
        /// Rows refused without a valid ID.
        var unnamed = 0

        init(read: DataSourceRead, source: DataSourceRecord, run: Int64) {
            self.read = read
            self.source = source
            self.run = run
        }

        var services: APIServices { read.services }

        var entitySetURL: String {
            DestinationProxy.url(destination?.url ?? "", source.path, query: nil)
        }

        /// Finds the destination and what the backend is to be sent.
        mutating func prepare() async throws {
            let services = services
            let source = source
            guard
                let destination = try await services.storage.destination(
                    appID: source.appID,
                    name: source.destination
                )
            else {
                throw Failure(reason: "The app has no destination \(source.destination) any more.")
            }
            guard let app = try await services.storage.app(id: source.appID) else {
                throw Failure(reason: "The app is gone.")
            }
            if services.settings.publicDestinationsOnly, await DestinationAddresses.refusal(destination.url) != nil {
                throw Failure(
                    reason: "The destination's address is not a public one, which this server does not send to."
                )
            }
            self.destination = destination
            switch destination.authentication {
            case .identity:
                let (issuer, keys, now) = (read.issuer(app), services.keys, services.now)
                let (audience, appID) = (destination.url, app.id)
                authorization = {
                    let identity = DestinationIdentity(
                        issuer: issuer,
                        audience: audience,
                        username: DataSourceRead.subject,
                        displayName: "Gangway",
                        app: appID,
                        registration: "",
                        at: now()
                    )
                    guard let token = try? await keys.destinationTokens.signer(at: identity.issuedAt).sign(identity)
                    else {
                        throw Failure(reason: "The server's identity could not be signed.")
                    }
                    return ("Authorization", "Bearer " + token)
                }
            case .credential:
                guard let credential = DestinationProxy.credential(of: destination, keys: services.keys) else {
                    throw Failure(reason: "The destination's credential does not open with the server key.")
                }
                authorization = { credential }
            }
        }

        /// Forgets what a delta read did before it became a full one.
        mutating func restart() {
            rows = 0
            unnamed = 0
        }

        /// Reads pages from `url` on, each written as it comes while the next is fetched;
        /// the delta link of the last page. A link refused is said so
        /// (``Failure/linkRefused``) only for the first page.
        mutating func pages(from url: String) async throws -> String? {
            let fetch = fetcher()
            var pending: Task<ODataPage, any Error>? = Task { try await fetch(url) }
            var current = url
            var isFirst = true
            // A backend whose next links come back round, or never end, is not read forever.
            var visited: Set<String> = [url]
            defer { pending?.cancel() }
            while let task = pending {
                let page: ODataPage
                do {
                    page = try await task.value
                } catch let error as Failure where error.linkRefused && !isFirst {
                    throw Failure(reason: error.reason)
                }
                isFirst = false
                let next = try page.nextLink.map { link in try follow(link, from: current) }
                if let next {
                    guard visited.insert(next).inserted else {
                        throw Failure(reason: "The backend's next link leads to a page it gave already.")
                    }
                    guard rows <= DataSourceRead.rowsPerRead else {
                        throw Failure(
                            reason: "The backend gave more than \(DataSourceRead.rowsPerRead) rows in one read."
                        )
                    }
                    current = next
                    pending = Task { try await fetch(next) }
                } else {
                    pending = nil
                }
                try await write(page)
                if next == nil {
                    guard let delta = page.deltaLink else { return nil }
                    return try follow(delta, from: current)
                }
            }
            return nil
        }

        /// Fetches and reads one page.
        func fetcher() -> @Sendable (String) async throws -> ODataPage {
            let authorization = authorization
            let keyProperty = source.keyProperty
            // Without a tracer, the read's pages are one trace, which no collector sees.
            let trace = RequestTrace.new()
            let tracer = read.services.tracer
            let entitySet = source.entitySet
            return { url in
                // Each page a span, in the read's.
                try await tracer.withSpan(
                    "GET data source page",
                    ofKind: .client,
                    attributes: { attributes in
                        attributes["http.request.method"] = "GET"
                        attributes["gangway.entity_set"] = entitySet
                    }
                ) { span in
                    var request = HTTPClientRequest(url: url)
                    request.headers.add(name: "Accept", value: "application/json")
                    for header in tracer.onwardHeaders(trace) {
                        request.headers.add(name: header.name, value: header.value)
                    }
                    request.headers.add(name: "OData-MaxVersion", value: "4.01")
                    request.headers.add(
                        name: "Prefer",
                        value: "odata.track-changes, odata.maxpagesize=\(DataSourceRead.pageSize)"
                    )
                    let header = try await authorization()
                    request.headers.add(name: header.name, value: header.value)
                    let response: HTTPClientResponse
                    do {
                        response = try await DestinationProxy.client.execute(
                            request,
                            timeout: DataSourceRead.pageTimeout
                        )
                    } catch {
                        throw Failure(reason: "The backend could not be reached.")
                    }
                    span?.attributes["http.response.status_code"] = Int(response.status.code)
                    guard response.status.code == 200 else {
                        let refused = [400, 404, 410].contains(Int(response.status.code))
                        throw Failure(reason: "The backend answered \(response.status.code).", linkRefused: refused)
                    }
                    let body: ByteBuffer
                    do {
                        body = try await response.body.collect(upTo: DataSourceRead.pageLimit)
                    } catch is NIOTooManyBytesError {
                        throw Failure(
                            reason: "A page of the backend's is larger than \(DataSourceRead.pageLimit >> 20) MiB."
                        )
                    } catch {
                        throw Failure(reason: "A page of the backend's was cut off.")
                    }
                    do {
                        return try body.readableBytesView.withUnsafeBytes { bytes throws(ODataPage.Unreadable) in
                            try ODataPage.read(bytes, keyProperty: keyProperty)
                        }
                    } catch let error as ODataPage.Unreadable {
                        throw Failure(reason: error.reason)
                    }
                }
            }
        }

        func follow(_ link: String, from current: String) throws -> String {
            try DataSourceRead.follow(link, from: current, within: destination?.url ?? "")
        }

        /// Writes one page's rows.
        mutating func write(_ page: ODataPage) async throws {
            var batch: [IngestRow] = []
            batch.reserveCapacity(page.rows.count)
            var refused = PullTally()
            for row in page.rows {
                rows += 1
                switch row {
                case .entity(let id, let fields):
                    do throws(APIError) {
                        try Validation.identifier(id, "The key")
                        try Validation.entityFields(fields)
                        batch.append(IngestRow(line: rows, id: id, fields: fields))
                    } catch {
                        refused.refusedCount += 1
                        let shown = IdentifierRule.identifier.problem(id) == nil ? id : ""
                        refused.refused.append(
                            .init(line: rows, id: shown, code: error.code.rawValue, message: error.message)
                        )
                    }
                case .removed(let id):
                    guard IdentifierRule.identifier.problem(id) == nil else {
                        unnamed += 1
                        continue
                    }
                    batch.append(IngestRow(line: rows, id: id, fields: nil))
                case .refused(let id, let code, let message):
                    refused.refusedCount += 1
                    let shown = IdentifierRule.identifier.problem(id) == nil ? id : ""
                    if shown.isEmpty { unnamed += 1 }
                    refused.refused.append(.init(line: rows, id: shown, code: code, message: message))
                }
            }
            refused.refused = Array(refused.refused.prefix(PullTally.refusalsKept))
            tally.add(refused)
            try await apply(batch)
        }

        /// Applies rows to the set, renewing the claim.
        func applied(_ batch: [IngestRow]) async throws -> PullTally {
            let now = services.now()
            do {
                // The devices waiting for the set hear of the part at once.
                defer { services.setWatch.written() }
                return try await services.storage.pull(
                    batch,
                    into: source.entitySet,
                    of: source.appID,
                    run: run,
                    holdingUntil: now.addingTimeInterval(DataSourceRead.lease),
                    limit: DataHandler.entitySetLimit,
                    by: DataSourceRead.subject,
                    at: now
                )
            } catch let error where error.code == .conflict {
                throw Failure(reason: "Another server took the read over.")
            }
        }

        mutating func apply(_ batch: [IngestRow]) async throws {
            tally.add(try await applied(batch))
        }

        /// At the end of a full read: the entities the backend gave before and not in it,
        /// gone from the backend, removed (those a device changed since are kept).
        mutating func removeUnseen() async throws {
            var after = ""
            while true {
                let ids = try await services.storage.pulledIDs(
                    in: source.entitySet,
                    of: source.appID,
                    before: run,
                    after: after,
                    limit: DataSourceRead.pageSize
                )
                guard let last = ids.last else { return }
                after = last
                try await apply(ids.map { IngestRow(line: 0, id: $0, fields: nil) })
            }
        }
    }
}
