import GangwayProtocol
import OpenAPIRuntime

/// The mobile-services API: every operation in `openapi.json`, each handed to the handler
/// of its resource (``APIHandler``), over the ``APIServices`` they share.
///
/// This type decides nothing: who may call an operation is ``AccessPolicy``'s (asked by
/// the HTTP gate, and by the console before it runs one in process), and what an
/// operation does is its handler's.
final class MobileServicesAPI: APIProtocol {
    let services: APIServices

    let server: ServerHandler
    let sessions: SessionsHandler
    let devices: DevicesHandler
    let logs: LogsHandler
    let changes: ChangesHandler
    let apps: AppsHandler
    let activation: ActivationHandler
    let users: UsersHandler
    let data: DataHandler
    let ingest: IngestHandler
    let schemas: SchemasHandler
    let oauth: OAuthHandler
    let identityLinks: IdentityLinksHandler
    let operators: OperatorsHandler
    let audit: AuditHandler
    let activity: ActivityHandler
    let destinations: DestinationsHandler
    let dataSources: DataSourcesHandler
    let deliveries: DeliveriesHandler
    let signingKeys: SigningKeysHandler

    init(services: APIServices) {
        self.services = services
        server = ServerHandler(services: services)
        sessions = SessionsHandler(services: services)
        devices = DevicesHandler(services: services)
        logs = LogsHandler(services: services)
        changes = ChangesHandler(services: services)
        apps = AppsHandler(services: services)
        activation = ActivationHandler(services: services)
        users = UsersHandler(services: services)
        data = DataHandler(services: services)
        ingest = IngestHandler(services: services)
        schemas = SchemasHandler(services: services)
        oauth = OAuthHandler(services: services)
        identityLinks = IdentityLinksHandler(services: services)
        operators = OperatorsHandler(services: services)
        audit = AuditHandler(services: services)
        activity = ActivityHandler(services: services)
        destinations = DestinationsHandler(services: services)
        dataSources = DataSourcesHandler(services: services)
        deliveries = DeliveriesHandler(services: services)
        signingKeys = SigningKeysHandler(services: services)
    }

    // MARK: Server

    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        try await server.getHealth(input)
    }

    func getLiveness(_ input: Operations.GetLiveness.Input) async throws -> Operations.GetLiveness.Output {
        try await server.getLiveness(input)
    }

    func getReadiness(_ input: Operations.GetReadiness.Input) async throws -> Operations.GetReadiness.Output {
        try await server.getReadiness(input)
    }

    func discoverApp(_ input: Operations.DiscoverApp.Input) async throws -> Operations.DiscoverApp.Output {
        try await server.discoverApp(input)
    }

    func getActivationKey(_ input: Operations.GetActivationKey.Input) async throws -> Operations.GetActivationKey.Output
    {
        try await server.getActivationKey(input)
    }

    func checkVersion(_ input: Operations.CheckVersion.Input) async throws -> Operations.CheckVersion.Output {
        try await server.checkVersion(input)
    }

    func proveAdminServer(_ input: Operations.ProveAdminServer.Input) async throws -> Operations.ProveAdminServer.Output
    {
        try await server.proveAdminServer(input)
    }

    // MARK: Sessions

    func signIn(_ input: Operations.SignIn.Input) async throws -> Operations.SignIn.Output {
        try await sessions.signIn(input)
    }

    func signOut(_ input: Operations.SignOut.Input) async throws -> Operations.SignOut.Output {
        try await sessions.signOut(input)
    }

    // MARK: Devices

    func getSettings(_ input: Operations.GetSettings.Input) async throws -> Operations.GetSettings.Output {
        try await devices.getSettings(input)
    }

    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        try await devices.registerDevice(input)
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        try await devices.listDevices(input)
    }

    func updateDevice(_ input: Operations.UpdateDevice.Input) async throws -> Operations.UpdateDevice.Output {
        try await devices.updateDevice(input)
    }

    // MARK: Logs

    func uploadLogs(_ input: Operations.UploadLogs.Input) async throws -> Operations.UploadLogs.Output {
        try await logs.uploadLogs(input)
    }

    func listLogs(_ input: Operations.ListLogs.Input) async throws -> Operations.ListLogs.Output {
        try await logs.listLogs(input)
    }

    // MARK: Changes

    func uploadSealedChanges(
        _ input: Operations.UploadSealedChanges.Input
    ) async throws -> Operations.UploadSealedChanges.Output {
        try await changes.uploadSealedChanges(input)
    }

    func listChanges(_ input: Operations.ListChanges.Input) async throws -> Operations.ListChanges.Output {
        try await changes.listChanges(input)
    }

    // MARK: Apps

    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        try await apps.listApps(input)
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        try await apps.createApp(input)
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        try await apps.getApp(input)
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        try await apps.updateApp(input)
    }

    func getAppAuthentication(
        _ input: Operations.GetAppAuthentication.Input
    ) async throws -> Operations.GetAppAuthentication.Output {
        try await apps.getAppAuthentication(input)
    }

    func setAppAuthentication(
        _ input: Operations.SetAppAuthentication.Input
    ) async throws -> Operations.SetAppAuthentication.Output {
        try await apps.setAppAuthentication(input)
    }

    // MARK: Activation

    func createActivation(_ input: Operations.CreateActivation.Input) async throws -> Operations.CreateActivation.Output
    {
        try await activation.createActivation(input)
    }

    func getActivationQRCode(
        _ input: Operations.GetActivationQRCode.Input
    ) async throws -> Operations.GetActivationQRCode.Output {
        try await activation.getActivationQRCode(input)
    }

    // MARK: Users

    func listUsers(_ input: Operations.ListUsers.Input) async throws -> Operations.ListUsers.Output {
        try await users.listUsers(input)
    }

    func createUser(_ input: Operations.CreateUser.Input) async throws -> Operations.CreateUser.Output {
        try await users.createUser(input)
    }

    func getUser(_ input: Operations.GetUser.Input) async throws -> Operations.GetUser.Output {
        try await users.getUser(input)
    }

    func updateUser(_ input: Operations.UpdateUser.Input) async throws -> Operations.UpdateUser.Output {
        try await users.updateUser(input)
    }

    func revokeUserSessions(
        _ input: Operations.RevokeUserSessions.Input
    ) async throws -> Operations.RevokeUserSessions.Output {
        try await users.revokeUserSessions(input)
    }

    // MARK: Data

    func getAppData(_ input: Operations.GetAppData.Input) async throws -> Operations.GetAppData.Output {
        try await data.getAppData(input)
    }

    func syncAppData(_ input: Operations.SyncAppData.Input) async throws -> Operations.SyncAppData.Output {
        try await data.syncAppData(input)
    }

    func listAppData(_ input: Operations.ListAppData.Input) async throws -> Operations.ListAppData.Output {
        try await data.listAppData(input)
    }

    func putEntity(_ input: Operations.PutEntity.Input) async throws -> Operations.PutEntity.Output {
        try await data.putEntity(input)
    }

    func ingestAppData(_ input: Operations.IngestAppData.Input) async throws -> Operations.IngestAppData.Output {
        try await ingest.ingestAppData(input)
    }

    func deleteEntity(_ input: Operations.DeleteEntity.Input) async throws -> Operations.DeleteEntity.Output {
        try await data.deleteEntity(input)
    }

    func listEntitySchemas(
        _ input: Operations.ListEntitySchemas.Input
    ) async throws -> Operations.ListEntitySchemas.Output {
        try await schemas.listEntitySchemas(input)
    }

    func getEntitySchema(_ input: Operations.GetEntitySchema.Input) async throws -> Operations.GetEntitySchema.Output {
        try await schemas.getEntitySchema(input)
    }

    func putEntitySchema(_ input: Operations.PutEntitySchema.Input) async throws -> Operations.PutEntitySchema.Output {
        try await schemas.putEntitySchema(input)
    }

    func deleteEntitySchema(
        _ input: Operations.DeleteEntitySchema.Input
    ) async throws -> Operations.DeleteEntitySchema.Output {
        try await schemas.deleteEntitySchema(input)
    }

    // MARK: OAuth

    func getAuthorizationServerMetadata(
        _ input: Operations.GetAuthorizationServerMetadata.Input
    ) async throws -> Operations.GetAuthorizationServerMetadata.Output {
        try await oauth.getAuthorizationServerMetadata(input)
    }

    func authorizeDevice(_ input: Operations.AuthorizeDevice.Input) async throws -> Operations.AuthorizeDevice.Output {
        try await oauth.authorizeDevice(input)
    }

    func requestToken(_ input: Operations.RequestToken.Input) async throws -> Operations.RequestToken.Output {
        try await oauth.requestToken(input)
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        try await oauth.revokeToken(input)
    }

    func getUserInfo(_ input: Operations.GetUserInfo.Input) async throws -> Operations.GetUserInfo.Output {
        try await oauth.getUserInfo(input)
    }

    func getOpenIDConfiguration(
        _ input: Operations.GetOpenIDConfiguration.Input
    ) async throws -> Operations.GetOpenIDConfiguration.Output {
        try await oauth.getOpenIDConfiguration(input)
    }

    func getJSONWebKeySet(_ input: Operations.GetJSONWebKeySet.Input) async throws -> Operations.GetJSONWebKeySet.Output
    {
        try await oauth.getJSONWebKeySet(input)
    }

    // MARK: IdentityLinks

    func listIdentityLinks(
        _ input: Operations.ListIdentityLinks.Input
    ) async throws -> Operations.ListIdentityLinks.Output {
        try await identityLinks.listIdentityLinks(input)
    }

    func linkIdentity(_ input: Operations.LinkIdentity.Input) async throws -> Operations.LinkIdentity.Output {
        try await identityLinks.linkIdentity(input)
    }

    func unlinkIdentity(_ input: Operations.UnlinkIdentity.Input) async throws -> Operations.UnlinkIdentity.Output {
        try await identityLinks.unlinkIdentity(input)
    }

    func linkOperatorIdentity(
        _ input: Operations.LinkOperatorIdentity.Input
    ) async throws -> Operations.LinkOperatorIdentity.Output {
        try await identityLinks.linkOperatorIdentity(input)
    }

    func unlinkOperatorIdentity(
        _ input: Operations.UnlinkOperatorIdentity.Input
    ) async throws -> Operations.UnlinkOperatorIdentity.Output {
        try await identityLinks.unlinkOperatorIdentity(input)
    }

    // MARK: Operators

    func listOperators(_ input: Operations.ListOperators.Input) async throws -> Operations.ListOperators.Output {
        try await operators.listOperators(input)
    }

    func addOperator(_ input: Operations.AddOperator.Input) async throws -> Operations.AddOperator.Output {
        try await operators.addOperator(input)
    }

    func updateOperator(_ input: Operations.UpdateOperator.Input) async throws -> Operations.UpdateOperator.Output {
        try await operators.updateOperator(input)
    }

    func removeOperator(_ input: Operations.RemoveOperator.Input) async throws -> Operations.RemoveOperator.Output {
        try await operators.removeOperator(input)
    }

    func enrolOperator(_ input: Operations.EnrolOperator.Input) async throws -> Operations.EnrolOperator.Output {
        try await operators.enrolOperator(input)
    }

    // MARK: Audit

    func listAuditEvents(_ input: Operations.ListAuditEvents.Input) async throws -> Operations.ListAuditEvents.Output {
        try await audit.listAuditEvents(input)
    }

    // MARK: Activity

    func getActivity(_ input: Operations.GetActivity.Input) async throws -> Operations.GetActivity.Output {
        try await activity.getActivity(input)
    }

    func getAttention(_ input: Operations.GetAttention.Input) async throws -> Operations.GetAttention.Output {
        try await activity.getAttention(input)
    }

    // MARK: Destinations

    func listDestinations(_ input: Operations.ListDestinations.Input) async throws -> Operations.ListDestinations.Output
    {
        try await destinations.listDestinations(input)
    }

    func putDestination(_ input: Operations.PutDestination.Input) async throws -> Operations.PutDestination.Output {
        try await destinations.putDestination(input)
    }

    func listDataSources(_ input: Operations.ListDataSources.Input) async throws -> Operations.ListDataSources.Output {
        try await dataSources.listDataSources(input)
    }

    func getDataSource(_ input: Operations.GetDataSource.Input) async throws -> Operations.GetDataSource.Output {
        try await dataSources.getDataSource(input)
    }

    func putDataSource(_ input: Operations.PutDataSource.Input) async throws -> Operations.PutDataSource.Output {
        try await dataSources.putDataSource(input)
    }

    func removeDataSource(_ input: Operations.RemoveDataSource.Input) async throws -> Operations.RemoveDataSource.Output
    {
        try await dataSources.removeDataSource(input)
    }

    func pullDataSource(_ input: Operations.PullDataSource.Input) async throws -> Operations.PullDataSource.Output {
        try await dataSources.pullDataSource(input)
    }

    func listDeliveries(_ input: Operations.ListDeliveries.Input) async throws -> Operations.ListDeliveries.Output {
        try await deliveries.listDeliveries(input)
    }

    func retryDelivery(_ input: Operations.RetryDelivery.Input) async throws -> Operations.RetryDelivery.Output {
        try await deliveries.retryDelivery(input)
    }

    func discardDelivery(_ input: Operations.DiscardDelivery.Input) async throws -> Operations.DiscardDelivery.Output {
        try await deliveries.discardDelivery(input)
    }

    func removeDestination(
        _ input: Operations.RemoveDestination.Input
    ) async throws -> Operations.RemoveDestination.Output {
        try await destinations.removeDestination(input)
    }

    func getDestinationKeys(
        _ input: Operations.GetDestinationKeys.Input
    ) async throws -> Operations.GetDestinationKeys.Output {
        try await destinations.getDestinationKeys(input)
    }

    // MARK: Signing keys

    func listSigningKeys(_ input: Operations.ListSigningKeys.Input) async throws -> Operations.ListSigningKeys.Output {
        try await signingKeys.listSigningKeys(input)
    }

    func rotateSigningKey(
        _ input: Operations.RotateSigningKey.Input
    ) async throws -> Operations.RotateSigningKey.Output {
        try await signingKeys.rotateSigningKey(input)
    }
}
