// An app that links the device library calls the server through it: its errors, its
// transport and the settings it reads are the client module's, and come with it.
@_exported public import GangwayClient
