import Foundation
import GangwayFlows
import Logging

/// Sends the user's own log records to the server, where the app's settings and the
/// user's consent allow it: at the end of an onboarding, at each launch and each time the
/// app goes to the background (its server contacts), no more often than the server's
/// interval.
///
/// - The user's consent (``GangwayFlows/ConsentRecord`` for ``consentTopic``) must be
///   given; withdrawn, the user's records are dropped at the next check and nothing of
///   theirs is sent again.
/// - The server must allow uploads (`logEnabled`); the records sent are those at or
///   above its level (the collector keeps no lower ones), in batches no larger than it
///   takes.
/// - A failure sends nothing and keeps the records; the flow goes on either way.
///
/// Put it after the settings download: it sends only in a flow that reached the server
/// (`FlowInfoKey.settingsExchanged`), so an offline launch tries nothing.
public struct LogUploadStep: Step {
    public let services: MobileServices
    public let collector: LogCollector
    /// The consent that governs uploads.
    public let consentTopic: String

    static let lastUploadKey = "gangway.logs.lastUpload"

    public init(services: MobileServices, collector: LogCollector, consentTopic: String) {
        self.services = services
        self.collector = collector
        self.consentTopic = consentTopic
    }

    /// The step that makes the flow's user the collector's current one: first in the
    /// flows that open a session, so what they log is that user's.
    public var tagging: some Step { Tagging(collector: collector) }

    struct Tagging: Step {
        let collector: LogCollector
        func onboard(_ context: FlowContext) async throws -> FlowContext { tag(context) }
        func restore(_ context: FlowContext) async throws -> FlowContext { tag(context) }
        func resetPasscode(_ context: FlowContext) async throws -> FlowContext { tag(context) }

        private func tag(_ context: FlowContext) -> FlowContext {
            collector.currentUser = context.onboardingID
            return context
        }
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { await uploadAtContact(context) }

    public func restore(_ context: FlowContext) async throws -> FlowContext { await uploadAtContact(context) }
    public func background(_ context: FlowContext) async throws -> FlowContext { await uploadAtContact(context) }

    /// Uploads only when this flow reached the server (offline, nothing is tried), and
    /// clears the mark so the next flow must reach it again.
    private func uploadAtContact(_ context: FlowContext) async -> FlowContext {
        guard context.info[.settingsExchanged] == true else { return context }
        var context = context
        context.info[.settingsExchanged] = nil
        await upload(context)
        return context
    }

    /// Sends what is due; returns how many records the server took.
    @discardableResult
    public func upload(_ context: FlowContext) async -> Int {
        let user = context.onboardingID
        do {
            guard let settings = try context.credentials.serverSettings() else { return 0 }
            collector.minimumLevel = settings.logLevel
            guard try ConsentRecord.load(topic: consentTopic, from: context.credentials)?.accepted == true else {
                collector.discard(user: user)
                return 0
            }
            guard settings.logUploadEnabled else { return 0 }
            let now = services.now()
            if let last = try context.credentials.data(forKey: Self.lastUploadKey)
                .flatMap({ Double(String(decoding: $0, as: UTF8.self)) }),
                now.timeIntervalSince1970 - last < Double(settings.logUploadInterval.components.seconds)
            {
                return 0
            }
            let entries = collector.entries(for: user).filter { $0.record.level >= settings.logLevel }
            guard !entries.isEmpty else { return 0 }
            let sent = try await services.uploadLogs(entries.map(\.record), context: context)
            collector.remove(Set(entries.map(\.number)))
            try context.credentials.put(Data("\(now.timeIntervalSince1970)".utf8), forKey: Self.lastUploadKey)
            services.logger.info("logs uploaded", metadata: ["records": "\(sent)"])
            return sent
        } catch {
            services.logger.notice("logs not uploaded", metadata: ["reason": "\(error)"])
            return 0
        }
    }
}
