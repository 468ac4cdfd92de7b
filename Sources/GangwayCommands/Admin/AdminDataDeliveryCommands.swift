import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal

/// `gangway admin data deliveries`: devices' changes waiting for the company's backend.
struct AdminDataDeliveries: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliveries",
        abstract: "List, retry or discard devices' changes waiting for the company's backend.",
        discussion: """
            A set whose data source delivers changes ('data source set --deliver-changes') \\
            sends each device's change to the service as its author; until the service \\
            answers, the change waits here and on its device. One that failed 8 times is \\
            parked: 'retry' sends it again now, 'discard' ends it with a refusal \\
            (DISCARDED) that its author's device shows. Both are in the audit.
            """,
        subcommands: [AdminDataDeliveriesList.self, AdminDataDeliveriesRetry.self, AdminDataDeliveriesDiscard.self],
        defaultSubcommand: AdminDataDeliveriesList.self
    )
}

struct AdminDataDeliveriesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the changes waiting, oldest first (the default)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var limit: ListLimitOption

    @Flag(help: "Only the parked ones.")
    var parked = false

    @Flag(help: "Print them as JSON.")
    var json = false

    func run() async throws {
        let (parked, json, limit) = (parked, json, limit.value)
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let deliveries = try await admin.deliveries(app: id, parked: parked, limit: limit)
            Console.standardOutput(json ? AdminFormatter.json(deliveries) : AdminFormatter.deliveries(deliveries))
        }
    }
}

/// The change a delivery command acts on.
struct DeliveryTarget: ParsableArguments {
    @Argument(help: "The change's ID, as 'deliveries' lists it.")
    var changeID: String

    func validate() throws {
        guard let id = UUID(uuidString: changeID), id.uuidString.lowercased() == changeID.lowercased() else {
            throw ValidationError("'\(TextRules.shown(changeID, limit: 64))' is not a change ID.")
        }
    }

    var id: String { changeID.lowercased() }

    /// Does `action` to the change in the app `app` names, then says `done`; a change
    /// that waits for no backend there is said so in one sentence.
    func act(
        through server: AdminOptions,
        in app: AppOption,
        _ action: @escaping @Sendable (AdminClient, _ changeID: String, _ appID: String) async throws -> Void,
        done: @escaping @Sendable (_ changeID: String) -> String
    ) async throws {
        let changeID = id
        try await server.run { admin in
            let appID = try await app.resolve(with: admin)
            do {
                try await action(admin, changeID, appID)
            } catch let error as ServiceError where error == .notFound {
                throw CommandFailure("no change \(changeID) waits for the backend of the app \(appID).")
            }
            Console.standardOutput(done(changeID))
        }
    }
}

struct AdminDataDeliveriesRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Send a waiting change to the backend again now, its attempts counted anew."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var target: DeliveryTarget

    func run() async throws {
        try await target.act(through: server, in: app) { admin, changeID, appID in
            try await admin.retryDelivery(changeID, app: appID)
        } done: {
            "The change \($0) goes to the backend again now."
        }
    }
}

struct AdminDataDeliveriesDiscard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Discard a waiting change: its author's device gets a refusal (DISCARDED)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption
    @OptionGroup var target: DeliveryTarget

    func run() async throws {
        try await target.act(through: server, in: app) { admin, changeID, appID in
            try await admin.discardDelivery(changeID, app: appID)
        } done: {
            "The change \($0) is discarded; its author's device shows it refused at its next sync."
        }
    }
}
