import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayServices

/// What the home prompt does with offline work: edits, the hand-over of pending changes
/// at each server contact, the list of the user's own changes, and the offline switch.
struct OfflineCommands: Sendable {
    let console: Console
    let manager: SessionManager
    let work: OfflineWork
    let network: NetworkSwitch
    /// The checks as a table to query, filled from the user's kept copy at each `checks`.
    let local: LocalEntityStore

    /// The entity set the terminal app edits.
    static let entitySet = ChecksText.entitySet

    /// The checks one page of `checks` lists.
    static let checksPerPage = 20

    /// `checks [FIELD=VALUE…] [sort=FIELD|sort=-FIELD] [page=N]`: the checks kept on the
    /// device, as the user sees them (their pending changes over them), filtered, sorted
    /// and paged by the local store, with no server contact, online or not. A filter is
    /// `=`, `!=`, `<`, `<=`, `>` or `>=` between a field and a value, compared as the set's
    /// schema types the field.
    func checks(_ words: [String]) async throws {
        var filters: [LocalQuery.Filter] = []
        var order: [LocalQuery.Order] = []
        var page = 1
        for word in words {
            if word.hasPrefix("sort=") {
                let field = String(word.dropFirst(5))
                order.append(
                    .init(field.hasPrefix("-") ? String(field.dropFirst()) : field, descending: field.hasPrefix("-"))
                )
            } else if word.hasPrefix("page="), let number = Int(word.dropFirst(5)), number >= 1 {
                page = number
            } else if let filter = Self.filter(word) {
                filters.append(filter)
            } else {
                console.line(localized("checks.usage"))
                return
            }
        }
        let context = try await requireContext()
        guard try work.fill(local, with: Self.entitySet, in: context) else {
            console.line(localized("checks.noneKept"))
            return
        }
        let query = LocalQuery(
            Self.entitySet,
            where: filters,
            sortedBy: order,
            limit: Self.checksPerPage,
            offset: (page - 1) * Self.checksPerPage
        )
        let rows: [OfflineWork.ShownEntity]
        let total: Int
        do {
            (rows, total) = (try local.entities(query), try local.count(query))
        } catch let refusal as LocalQueryError {
            console.line(console.styled(localized("query.refused", refusal.message), .red))
            return
        }
        let pages = max(1, (total + Self.checksPerPage - 1) / Self.checksPerPage)
        console.line(localized("checks.match", count: total, page, pages))
        for line in ChecksText.lines(rows) { console.line("  \(line)") }
        if page < pages { console.line(console.styled(localized("checks.nextPage", page + 1), .dim)) }
    }

    /// `FIELD=VALUE`, `FIELD!=VALUE`, `FIELD<VALUE` and the rest, as a filter.
    static func filter(_ word: String) -> LocalQuery.Filter? {
        // The longest operator first, so `<=` is not read as `<` and a value starting `=`.
        for comparison in [
            LocalQuery.Filter.Comparison.notEquals, .lessOrEqual, .greaterOrEqual, .equals, .less, .greater,
        ] {
            guard let range = word.range(of: comparison.rawValue), range.lowerBound != word.startIndex else { continue }
            let field = String(word[..<range.lowerBound])
            guard EntityLimits.isFieldName(field) else { continue }
            return LocalQuery.Filter(field, comparison, String(word[range.upperBound...]))
        }
        return nil
    }

    /// `edit ID FIELD=VALUE…`: recorded at once, then sent when the network is on.
    func edit(_ words: [String]) async throws {
        guard words.count >= 2 else {
            console.line(localized("edit.usage"))
            return
        }
        var fields: [String: String] = [:]
        for pair in words.dropFirst() {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                console.line(localized("edit.notAPair", pair))
                return
            }
            let name = String(pair[..<equals])
            guard fields[name] == nil else {
                console.line(localized("edit.givenTwice", name))
                return
            }
            fields[name] = String(pair[pair.index(after: equals)...])
        }
        let context = try await requireContext()
        // A check this device has never seen is created for everyone: a typo must not be.
        if (try? work.wouldCreate(Self.entitySet, entityID: words[0], fields: fields, in: context)) == true,
            !(try await console.confirm(localized("edit.confirmNew", words[0])))
        {
            console.line(localized("edit.notCreated"))
            return
        }
        let change: OwnChange
        do {
            change = try work.edit(Self.entitySet, entityID: words[0], fields: fields, in: context)
        } catch let refusal as ChangeRejection {
            console.line(console.styled(localized("edit.refused", TerminalText.describe(refusal)), .red))
            return
        } catch let error as OfflineWorkError {
            console.line(console.styled(localized("edit.failed", error), .red))
            return
        }
        console.line(
            console.styled(localized(change.creates ? "edit.savedNew" : "edit.saved", change.entityID), .green)
        )
        if !network.isOffline { try await sync(announce: false) }
    }

    /// Sends what waits (every user's where the app lets this session carry them), and
    /// takes in this user's answers, with a progress line.
    /// - Parameter announce: Whether to say so when nothing waits.
    func sync(announce: Bool = true) async throws {
        let context = try await requireContext()
        let waiting = try work.waiting(in: context)
        guard try work.isReady(in: context) else {
            if announce { console.line(localized("sync.notReady")) }
            return
        }
        if network.isOffline {
            try work.collect(in: context)
            if announce || waiting.own + waiting.others > 0 {
                console.line(console.styled(localized("sync.offline", count: waiting.own + waiting.others), .yellow))
            }
            return
        }
        let carries =
            (try? ServiceAccount(reading: context.credentials).settings?.allowsUploadOfPreviousUserChanges)
            ?? APIDefaults.allowsUploadOfPreviousUserChanges
        let show = Self.handOverLines(console: console)
        show(.sending(own: waiting.own, carried: carries ? waiting.others : 0, left: carries ? 0 : waiting.others))
        let report: OfflineWork.SyncReport
        do {
            report = try await work.sync(in: context) { done, total in show(.progress(done: done, total: total)) }
        } catch let error as ServiceError {
            console.line(console.styled(localized("sync.notSent", TerminalText.sentence(error.summary)), .yellow))
            return
        }
        if report.sent.settled > 0 {
            // The kept copy takes in what the server now holds, so an applied change of
            // the user's shows as the server's once its readable copy is gone.
            _ = try? await work.reader.read(Self.entitySet, in: context)
        }
        Self.tell(report, console: console, announce: announce)
    }

    /// `listen [SECONDS]`: waits up to SECONDS (``GangwayProtocol/APILimits/syncWait``,
    /// the most by default) for the server to change the checks this user receives, and
    /// says what came the moment it comes: a live update, one request held open by the
    /// server rather than a poll. The kept copy takes it in.
    func listen(_ arguments: [String]) async throws {
        let seconds: Int
        switch arguments.count {
        case 0: seconds = APILimits.syncWait.upperBound
        case 1:
            guard let given = Int(arguments[0]), APILimits.syncWait.contains(given) else { fallthrough }
            seconds = given
        default:
            console.line(
                localized("listen.usage", APILimits.syncWait.lowerBound, APILimits.syncWait.upperBound)
            )
            return
        }
        guard !network.isOffline else {
            console.line(console.styled(localized("listen.offline"), .yellow))
            return
        }
        let context = try await requireContext()
        console.line(localized("listen.waiting", seconds))
        // Only what changed comes, and only that is written: the copy and the local store.
        let synced = try await work.reader.sync(Self.entitySet, in: context, waitingUpTo: seconds)
        if let failure = synced.failure {
            console.line(console.styled(localized("checks.notRead", failure.summary), .yellow))
            return
        }
        try? work.update(local, with: synced, in: context)
        let (came, gone) = (synced.upserted, synced.removedIDs)
        guard synced.changed else {
            console.line(localized("listen.nothing", count: seconds))
            return
        }
        console.line(
            localized(
                "listen.came",
                localized("checks.count", count: came.count),
                localized("checks.count", count: gone.count)
            )
        )
        for line in ChecksText.lines(came) { console.line("  \(line)") }
    }

    /// What the hand-over says as it goes, at `sync` and in the flows'
    /// ``OfflineHandOverStep``: whose changes go, the progress, and the server's answers.
    static func handOverLines(console: Console) -> @Sendable (OfflineHandOverStep.Event) -> Void {
        { event in
            switch event {
            case .sending(_, let carried, let left):
                if carried > 0 { console.line(localized("sync.sendingOthers", Self.count(carried))) }
                if left > 0 { console.line(localized("sync.othersWait", count: left)) }
            case .progress(let done, let total):
                console.line(console.styled("  " + localized("sync.progress", done, total), .dim))
            case .finished(let report):
                tell(report, console: console, announce: false)
            }
        }
    }

    /// What the server answered, and what needs the user's look.
    /// - Parameter announce: Whether to say so when nothing was sent.
    private static func tell(_ report: OfflineWork.SyncReport, console: Console, announce: Bool) {
        let answered = report.sent.answered
        if report.sent.settled > 0 || answered[.held] != nil || announce {
            let parts = [
                answered[.applied].map { localized("sync.applied", $0) },
                answered[.duplicate].map { localized("sync.duplicate", $0) },
                answered[.conflict].map { localized("sync.conflict", $0) },
                answered[.rejected].map { localized("sync.rejected", $0) },
                answered[.held].flatMap {
                    $0 > report.sent.delivering ? localized("sync.held", $0 - report.sent.delivering) : nil
                },
                report.sent.delivering > 0 ? localized("sync.delivering", report.sent.delivering) : nil,
            ].compactMap { $0 }
            console.line(
                parts.isEmpty ? localized("sync.nothing") : localized("sync.answered", parts.joined(separator: ", "))
            )
        }
        if !report.archived.isEmpty {
            console.line(console.styled(localized("sync.needLook", count: report.archived.count), .yellow))
        }
    }

    /// On return from the background: sends what waits on the device before the home
    /// screen, saying what it did; a failure is told, never thrown. (At a launch, a switch
    /// or a new user the flows' ``OfflineHandOverStep`` does it.)
    func handOver() async {
        do {
            try await sync(announce: false)
        } catch {
            console.line(console.styled(localized("sync.handOverFailed", TerminalText.describe(error)), .yellow))
        }
    }

    /// `pending`: this user's pending, conflicting and refused changes, numbered for
    /// `discard`, and how many other users' wait.
    func pending() async throws {
        let context = try await requireContext()
        try work.collect(in: context)
        let own = try work.own(in: context)
        let waiting = try work.waiting(in: context)
        if own.isEmpty { console.line(localized("pending.none")) }
        for (index, change) in own.enumerated() {
            let fields = change.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            console.line(
                localized(change.creates ? "pending.create" : "pending.edit", index + 1, change.entityID, fields)
            )
            switch change.state {
            case .pending:
                console.line(console.styled("   " + localized("pending.waiting"), .dim))
            case .conflict:
                for conflict in change.conflicts {
                    let server = conflict.serverValue ?? localized("pending.noValue")
                    let line = localized("pending.conflict", conflict.field, server, conflict.deviceValue)
                    console.line(console.styled("   " + line, .yellow))
                }
                console.line(console.styled("   " + localized("pending.conflictAdvice"), .dim))
            case .rejected:
                let reason = change.rejection.map { localized("pending.reason", TerminalText.describe($0), $0.code) }
                console.line(console.styled("   " + localized("pending.refused", reason ?? "-"), .red))
                console.line(console.styled("   " + localized("pending.refusedAdvice"), .dim))
            }
        }
        if waiting.others > 0 {
            console.line(localized("pending.others", count: waiting.others))
        }
    }

    /// `discard N`: drops the Nth of `pending`'s list.
    func discard(_ argument: String?) async throws {
        let context = try await requireContext()
        let own = try work.own(in: context)
        guard !own.isEmpty else {
            console.line(localized("discard.none"))
            return
        }
        guard let number = argument.flatMap(Int.init), (1...own.count).contains(number) else {
            console.line(localized("discard.usage", own.count))
            return
        }
        let change = own[number - 1]
        guard try await console.confirm(localized("discard.question." + change.state.rawValue, change.entityID)) else {
            return
        }
        try work.discard(change.id, in: context)
        console.line(
            change.state == .pending
                ? localized("discard.unsent")
                : localized("discard.archived", change.entityID)
        )
    }

    /// `offline on|off`.
    func offline(_ setting: String?) {
        console.line(Self.offline(setting, network: network))
    }

    /// `offline on|off` on `network`, and what to say about it.
    static func offline(_ setting: String?, network: NetworkSwitch) -> String {
        switch setting {
        case "on":
            network.isOffline = true
            return localized("offline.on")
        case "off":
            network.isOffline = false
            return localized("offline.off")
        default:
            return localized(network.isOffline ? "offline.usageOffline" : "offline.usageOnline")
        }
    }

    /// Before the user leaves the device (remove): says what of theirs has not reached the
    /// server and offers to send it first.
    /// - Returns: Whether to go on.
    func beforeRemoval() async throws -> Bool {
        let context = try await requireContext()
        let waiting = try work.waiting(in: context).own
        guard waiting > 0 else { return true }
        console.line(console.styled(localized("remove.notSent", count: waiting), .yellow))
        if !network.isOffline, try await console.confirm(localized("remove.sendFirst", count: waiting)) {
            try await sync()
        }
        let left = try work.waiting(in: context).own
        if left > 0 {
            console.line(localized("remove.staysSealed", count: left))
        }
        return true
    }

    private func requireContext() async throws -> FlowContext {
        guard let context = await manager.flowContext else { throw ServiceError.notSignedIn }
        return context
    }

    /// "1 change", "3 changes".
    static func count(_ number: Int) -> String { localized("count", count: number) }

    /// The words of a command line, with double quotes keeping spaces in one word:
    /// `edit F-GKXA-fuel "note=valve ok"` or `note="valve ok"`; `nil` when a quote is
    /// left open (what was meant cannot be known).
    static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character.isWhitespace, !quoted {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        guard !quoted else { return nil }
        if started { words.append(word) }
        return words
    }
}
