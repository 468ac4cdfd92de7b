import Foundation
import GangwayProtocol
import GangwayServerStorage

/// The overview's figures: activity by day, and what needs the admin's attention.
struct ActivityHandler: APIHandler {
    let services: APIServices

    func getActivity(_ input: Operations.GetActivity.Input) async throws -> Operations.GetActivity.Output {
        var appID: String?
        if let id = input.query.app { appID = try await app(id).id }
        let period = input.query.period ?? .week
        let (bucket, count) =
            switch period {
            case .day: (ActivityBucket.hour, 24)
            case .week: (ActivityBucket.day, 7)
            case .month: (ActivityBucket.day, 30)
            }
        let end = bucket.start(of: now()).addingTimeInterval(TimeInterval(bucket.seconds))
        let start = end.addingTimeInterval(-TimeInterval(bucket.seconds * count))
        let active: ActivityKind = bucket == .hour ? .activeDevicesInHour : .activeDevicesInDay
        let kinds: [ActivityKind] = [
            .registrations, .signIns, .signInFailures, .changes, .conflicts, .refusedChanges, active,
        ]
        let counts = try await perform {
            try await storage.activity(appID: appID, kinds: kinds, from: start, to: end, per: bucket)
        }
        var byBucket: [Date: [ActivityKind: Int]] = [:]
        for counted in counts { byBucket[counted.start, default: [:]][counted.kind] = counted.count }
        let buckets = (0..<count).map { index in
            let bucketStart = start.addingTimeInterval(TimeInterval(bucket.seconds * index))
            let counted = byBucket[bucketStart] ?? [:]
            func value(_ kind: ActivityKind) -> Int64 { Int64(counted[kind] ?? 0) }
            return Components.Schemas.ActivityBucket(
                start: bucketStart,
                registrations: value(.registrations),
                activeDevices: value(active),
                signIns: value(.signIns),
                signInFailures: value(.signInFailures),
                changes: value(.changes),
                conflicts: value(.conflicts),
                refusedChanges: value(.refusedChanges)
            )
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        period: .init(rawValue: period.rawValue) ?? .week,
                        bucketSeconds: bucket == .hour ? ._3600 : ._86400,
                        buckets: buckets
                    )
                )
            )
        )
    }

    func getAttention(_ input: Operations.GetAttention.Input) async throws -> Operations.GetAttention.Output {
        let apps =
            if let id = input.query.app {
                [try await app(id)]
            } else {
                try await perform { try await storage.apps() }
            }
        let time = now()
        let since = ActivityBucket.day.start(of: time).addingTimeInterval(
            -Double(Components.Schemas.Attention.days - 1) * 86_400
        )
        let listed = APILimits.attentionListed.upperBound
        let appID = input.query.app.map { _ in apps[0].id }
        let changes = try await perform {
            try await storage.activity(
                appID: appID,
                kinds: [.conflicts, .refusedChanges],
                from: since,
                to: time.addingTimeInterval(1),
                per: .day
            )
        }
        func total(_ kind: ActivityKind) -> Int64 {
            Int64(changes.filter { $0.kind == kind }.reduce(0) { $0 + $1.count })
        }
        let blocked = try await perform { try await storage.blockedUsers(limit: listed) }
        let locked = try await perform { try await storage.lockedDeviceCount(appID: appID) }
        var overdue: [(device: DeviceRecord, past: Components.Schemas.OverdueDevice.PastPayload)] = []
        var overdueCount = 0
        for app in apps {
            guard let policy = app.settings.blockWipingPolicy,
                let days = [policy.lockAfterDays, policy.wipeAfterDays].compactMap({ $0 }).min()
            else { continue }
            let cutoff = time.addingTimeInterval(-Double(days) * 86_400)
            let silent = try await perform {
                try await storage.silentDevices(appID: app.id, since: cutoff, limit: listed)
            }
            overdueCount += silent.count
            for device in silent.devices {
                let silentFor = time.timeIntervalSince(device.lastContactAt ?? device.registeredAt)
                let wiped = policy.wipeAfterDays.map { silentFor >= Double($0) * 86_400 } ?? false
                overdue.append((device, wiped ? .wipe : .lock))
            }
        }
        overdue.sort {
            ($0.device.lastContactAt ?? $0.device.registeredAt) < ($1.device.lastContactAt ?? $1.device.registeredAt)
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        since: since,
                        conflicts: total(.conflicts),
                        refusedChanges: total(.refusedChanges),
                        blockedUsers: blocked.names,
                        blockedUserCount: Int64(blocked.count),
                        lockedDevices: Int64(locked),
                        overdueDevices: overdue.prefix(listed).map { device, past in
                            .init(
                                appID: device.appID,
                                registrationID: device.registrationID,
                                userID: device.username,
                                deviceName: device.deviceName,
                                lastContactAt: device.lastContactAt ?? device.registeredAt,
                                past: past
                            )
                        },
                        overdueDeviceCount: Int64(overdueCount)
                    )
                )
            )
        )
    }
}
