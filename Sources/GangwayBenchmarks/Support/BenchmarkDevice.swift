import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayServices
import GangwayStore
import GangwaySystem
import Logging

/// A device signed in to a benchmark's server as the library's own types make one: the
/// user's secure store (no passcode, real files), holding the session and the settings,
/// the device's outbox, a reader of the app's data and a local store to query it, so a
/// benchmark times the device's own code end to end, not a copy of it.
struct BenchmarkDevice {
    let context: FlowContext
    let reader: AppDataReader
    let work: OfflineWork
    let local: LocalEntityStore
    private let store: SecureStore

    /// Signs `session`'s user in on a new device in `directory`, after the server's
    /// settings (the sets' schemas among them) are downloaded.
    static func signedIn(
        at serverURL: URL,
        session: ServerSession,
        in directory: URL,
        logger: Logger
    ) async throws -> BenchmarkDevice {
        let deviceKeys = InMemoryDeviceKeyStore()
        let environment = SecureStoreEnvironment(deviceKeys: deviceKeys, logger: logger)
        let store = try SecureStoreLocation(
            directory: directory.appendingPathComponent("user"),
            environment: environment
        )
        .create(protection: .noPasscode)
        let client = MobileServicesClient(serverURL: serverURL)
        try store.keep(session)
        try store.keep(
            try await client.settings(appID: BenchmarkServer.appID, token: session.token),
            contactAt: WallClock.now()
        )
        var context = FlowContext(onboardingID: UUID(), presenter: PasscodePresenter(""), credentials: store)
        context.info[.appConfiguration] = AppConfiguration(
            serverURL: serverURL,
            appID: BenchmarkServer.appID,
            appName: "Ground checks"
        )
        let services = MobileServices(
            device: DeviceIdentity(deviceID: "benchmark-device", deviceName: "benchmark", appVersion: "1.0.0"),
            loader: ConfigurationLoader([]),
            configurationStore: ConfigurationStore(file: directory.appendingPathComponent("configuration.json")),
            logger: logger
        )
        let outbox = try Outbox(directory: directory.appendingPathComponent("outbox"), deviceKeys: deviceKeys)
        return BenchmarkDevice(
            context: context,
            reader: AppDataReader(services: services),
            work: OfflineWork(services: services, outbox: outbox),
            local: try LocalEntityStore(),
            store: store
        )
    }

    /// One sync of `entitySet` as an app makes it: its changes kept, then the local store
    /// brought up to date by them.
    func sync(_ entitySet: String) async throws -> AppDataSync {
        let synced = try await reader.sync(entitySet, in: context)
        if let failure = synced.failure { throw failure }
        try work.update(local, with: synced, in: context)
        return synced
    }

    func close() { store.close() }
}
