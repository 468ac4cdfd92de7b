import Foundation
import GangwayFlows
import GangwayServices

/// `crew`: the airline's own backend, reached through the app's destination `crew` as the
/// signed-in person (``DestinationClient``): the roster it has for them and the shift's
/// notes; `crew note TEXT` leaves a note for the next shift.
struct CrewCommands: Sendable {
    let console: Console
    let manager: SessionManager
    let services: MobileServices
    let network: NetworkSwitch

    func run(_ words: [String]) async throws {
        guard let context = await manager.flowContext else { throw ServiceError.notSignedIn }
        if network.isOffline {
            console.line(console.styled(localized("crew.offline"), .yellow))
            return
        }
        let client = DestinationClient(services: services, context: context)
        switch words.first?.lowercased() {
        case nil:
            try await roster(client)
        case "note":
            let text = words.dropFirst().joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else {
                console.line(localized("crew.usage"))
                return
            }
            try await note(text, client)
        default:
            console.line(localized("crew.usage"))
        }
    }

    private func roster(_ client: DestinationClient) async throws {
        guard
            let answer = try await send(
                DestinationRequest(destination: CrewAPI.destination, path: "/roster"),
                client
            )
        else { return }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let roster = try? decoder.decode(CrewAPI.Roster.self, from: answer.body) else {
            console.line(console.styled(localized("crew.unreadable"), .red))
            return
        }
        console.line(localized("crew.sees", roster.name, roster.user))
        if let shift = roster.shift {
            let key = roster.stands.count == 1 ? "crew.shiftOneStand" : "crew.shift"
            console.line(localized(key, shift, roster.stands.joined(separator: ", ")))
        } else {
            console.line(localized("crew.noShift"))
        }
        guard !roster.notes.isEmpty else {
            console.line(console.styled(localized("crew.noNotes"), .dim))
            return
        }
        console.line(localized("crew.notes"))
        for line in CrewNotesText.lines(roster.notes) { console.line("  " + line) }
    }

    private func note(_ text: String, _ client: DestinationClient) async throws {
        let request = DestinationRequest(
            "POST",
            destination: CrewAPI.destination,
            path: "/notes",
            headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data(text.utf8)
        )
        guard try await send(request, client) != nil else { return }
        console.line(console.styled(localized("crew.noted"), .green))
    }

    /// The backend's answer when it took the request; what went wrong, said, otherwise.
    private func send(_ request: DestinationRequest, _ client: DestinationClient) async throws -> DestinationResponse? {
        let answer: DestinationResponse
        do {
            answer = try await client.send(request)
        } catch let error as ServiceError where error == .notFound {
            console.line(console.styled(localized("crew.noDestination", CrewAPI.destination), .yellow))
            return nil
        } catch let error as ServiceError where error == .serverFailure {
            console.line(console.styled(localized("crew.unavailable"), .yellow))
            return nil
        }
        switch answer.status {
        case 200..<300:
            return answer
        case 401, 403:
            console.line(console.styled(localized("crew.refused"), .red))
        case 400:
            console.line(console.styled(localized("crew.badNote", CrewAPI.noteLimit), .yellow))
        default:
            console.line(console.styled(localized("crew.failed", answer.status), .red))
        }
        return nil
    }
}
