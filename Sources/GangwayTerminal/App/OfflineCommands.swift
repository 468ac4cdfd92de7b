import Foundation
import GangwayFlows
import GangwayOffline
import GangwayServices

/// What the home prompt does with offline work: edits, the hand-over of pending changes
/// at each server contact, the list of the user's own changes, and the offline switch.
struct OfflineCommands: Sendable {
    let console: Console
    let manager: SessionManager
    let work: OfflineWork
    let network: NetworkSwitch

    /// The entity set the terminal app edits.
    static let entitySet = ChecksText.entitySet

    /// `edit ID FIELD=VALUE…`: recorded at once, then sent when the network is on.
    func edit(_ words: [String]) async throws {
        guard words.count >= 2 else {
            console.line("Say what to change: edit F-GKXA-fuel status=done \"note=valve ok\".")
            return
        }
        var fields: [String: String] = [:]
        for pair in words.dropFirst() {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                console.line("'\(pair)' is not FIELD=VALUE; quote a value with spaces: \"note=valve ok\".")
                return
            }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        let context = try await requireContext()
        let change: OwnChange
        do {
            change = try work.edit(Self.entitySet, entityID: words[0], fields: fields, in: context)
        } catch let refusal as ChangeRejection {
            console.line(console.styled("Not saved: \(refusal.message) (\(refusal.code))", .red))
            return
        } catch let error as OfflineWorkError {
            console.line(console.styled("Not saved: \(error)", .red))
            return
        }
        let what = change.creates ? "New check \(change.entityID)" : "Change to \(change.entityID)"
        console.line(console.styled("\(what) saved on this device (pending).", .green))
        if !network.isOffline { try await sync(announce: false) }
    }

    /// Sends what waits (every user's where the app lets this session carry them), and
    /// takes in this user's answers, with a progress line.
    /// - Parameter announce: Whether to say so when nothing waits.
    func sync(announce: Bool = true) async throws {
        let context = try await requireContext()
        let waiting = try work.waiting(in: context)
        guard try work.isReady(in: context) else {
            if announce { console.line("This user has not reached the server since the app could work offline.") }
            return
        }
        if network.isOffline {
            try work.collect(in: context)
            if announce || waiting.own + waiting.others > 0 {
                console.line(
                    console.styled(
                        "Offline: \(Self.count(waiting.own + waiting.others)) wait for the network.",
                        .yellow
                    )
                )
            }
            return
        }
        let carries =
            (try? ServiceAccount(reading: context.credentials).settings?.allowsUploadOfPreviousUserChanges) ?? false
        if waiting.others > 0 {
            console.line(
                carries
                    ? "Sending \(Self.count(waiting.others)) left on this device by other users, as theirs…"
                    : "\(Self.count(waiting.others)) of other users \(waiting.others == 1 ? "waits" : "wait") for their authors (the app does not let another user send them)."
            )
        }
        let report: OfflineWork.SyncReport
        do {
            report = try await work.sync(in: context) { done, total in
                console.line(console.styled("  sent \(done) of \(total)", .dim))
            }
        } catch let error as ServiceError {
            console.line(
                console.styled(
                    "Not sent: \(error.summary). Nothing is lost; they go at the next server contact.",
                    .yellow
                )
            )
            return
        }
        if report.sent.settled > 0 {
            // The kept copy takes in what the server now holds, so an applied change of
            // the user's shows as the server's once its readable copy is gone.
            _ = try? await work.reader.read(Self.entitySet, in: context)
        }
        let answered = report.sent.answered
        if report.sent.settled > 0 || announce {
            let parts = [
                answered[.applied].map { "\($0) applied" },
                answered[.duplicate].map { "\($0) already applied" },
                answered[.conflict].map { "\($0) in conflict" },
                answered[.rejected].map { "\($0) refused" },
            ].compactMap { $0 }
            console.line(parts.isEmpty ? "Nothing to send." : "The server answered: \(parts.joined(separator: ", ")).")
        }
        if !report.archived.isEmpty {
            console.line(
                console.styled(
                    "\(Self.count(report.archived.count)) of yours \(report.archived.count == 1 ? "needs" : "need") a look: 'pending' lists them.",
                    .yellow
                )
            )
        }
    }

    /// At a launch, a switch or a new user: sends what waits on the device before the
    /// home screen, saying what it did; a failure is told, never thrown.
    func handOver() async {
        do {
            try await sync(announce: false)
        } catch {
            console.line(console.styled("Pending changes not sent: \(error)", .yellow))
        }
    }

    /// `pending`: this user's pending, conflicting and refused changes, numbered for
    /// `discard`, and how many other users' wait.
    func pending() async throws {
        let context = try await requireContext()
        try work.collect(in: context)
        let own = try work.own(in: context)
        let waiting = try work.waiting(in: context)
        if own.isEmpty { console.line("No changes of yours wait or need a look.") }
        for (index, change) in own.enumerated() {
            let fields = change.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let action = change.creates ? "create" : "edit"
            console.line("\(index + 1). \(action) \(change.entityID): \(fields)")
            switch change.state {
            case .pending:
                console.line(console.styled("   pending: not yet answered by the server", .dim))
            case .conflict:
                for conflict in change.conflicts {
                    console.line(
                        console.styled(
                            "   conflict: \(conflict.field) is \(conflict.serverValue ?? "(none)") on the server; yours was \(conflict.deviceValue)",
                            .yellow
                        )
                    )
                }
                console.line(console.styled("   the rest was applied; edit again to set yours, or discard", .dim))
            case .rejected:
                let reason = change.rejection.map { "\($0.message) (\($0.code))" } ?? "refused"
                console.line(console.styled("   refused: \(reason)", .red))
                console.line(console.styled("   your later changes to it wait; edit again or discard", .dim))
            }
        }
        if waiting.others > 0 {
            console.line("\(Self.count(waiting.others)) of other users of this device wait in the outbox.")
        }
    }

    /// `discard N`: drops the Nth of `pending`'s list.
    func discard(_ argument: String?) async throws {
        let context = try await requireContext()
        let own = try work.own(in: context)
        guard !own.isEmpty else {
            console.line("No changes of yours wait or need a look; nothing to discard.")
            return
        }
        guard let number = argument.flatMap(Int.init), (1...own.count).contains(number) else {
            console.line("Say which: discard N, with N from 'pending' (1 to \(own.count)).")
            return
        }
        let change = own[number - 1]
        guard try await console.confirm("Discard your \(change.state.rawValue) change to \(change.entityID)?") else {
            return
        }
        try work.discard(change.id, in: context)
        console.line(
            change.state == .pending
                ? "Discarded: it will not be sent."
                : "Discarded; any later change of yours to \(change.entityID) goes at the next sync."
        )
    }

    /// `offline on|off`.
    func offline(_ setting: String?) {
        switch setting {
        case "on":
            network.isOffline = true
            console.line("Offline: the app no longer reaches the server. Edits are kept on the device.")
        case "off":
            network.isOffline = false
            console.line("Online again; 'sync' sends what waits.")
        default:
            console.line("The app is \(network.isOffline ? "offline" : "online"). Say 'offline on' or 'offline off'.")
        }
    }

    /// Before the user leaves the device (remove): says what of theirs has not reached the
    /// server and offers to send it first.
    /// - Returns: Whether to go on.
    func beforeRemoval() async throws -> Bool {
        let context = try await requireContext()
        let waiting = try work.waiting(in: context).own
        guard waiting > 0 else { return true }
        console.line(
            console.styled(
                "\(Self.count(waiting)) of this user's \(waiting == 1 ? "has" : "have") not reached the server.",
                .yellow
            )
        )
        if !network.isOffline, try await console.confirm("Send them first?") {
            try await sync()
        }
        let left = try work.waiting(in: context).own
        if left > 0 {
            console.line(
                "\(Self.count(left)) \(left == 1 ? "stays" : "stay") in the device's outbox, sealed: they go as this user's at the next server contact of a user the app lets carry them."
            )
        }
        return true
    }

    private func requireContext() async throws -> FlowContext {
        guard let context = await manager.flowContext else { throw ServiceError.notSignedIn }
        return context
    }

    static func count(_ number: Int) -> String { number == 1 ? "1 change" : "\(number) changes" }

    /// The words of a command line, with double quotes keeping spaces in one word:
    /// `edit F-GKXA-fuel "note=valve ok"` or `note="valve ok"`.
    static func words(_ line: String) -> [String] {
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
        if started { words.append(word) }
        return words
    }
}
