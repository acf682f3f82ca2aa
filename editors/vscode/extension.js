// Starts the tooldef language server (`tooldef lsp`, over stdio) for `.tool` files.
// Highlighting comes from the TextMate grammar alone and works without the server.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

function serverCommand() {
  const configured = vscode.workspace.getConfiguration('tooldef').get('path');
  return typeof configured === 'string' && configured.trim() !== '' ? configured.trim() : 'tooldef';
}

async function start() {
  const command = serverCommand();
  client = new LanguageClient(
    'tooldef',
    'tooldef language server',
    { command, args: ['lsp'], transport: TransportKind.stdio },
    {
      documentSelector: [
        { scheme: 'file', language: 'tool' },
        { scheme: 'untitled', language: 'tool' },
      ],
    },
  );
  try {
    await client.start();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    void vscode.window.showWarningMessage(
      `tooldef: could not start the language server \`${command} lsp\` (${message}). ` +
        'Install tooldef or set `tooldef.path`; highlighting works without it.',
    );
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch {
      // It never started, or it already exited.
    }
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('tooldef.path')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
