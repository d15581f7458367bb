@echo off
rem kindgiw.cmd: runs exactly the kindgi CLI version this pack pins ("cli" in kindgi.config.json, or
rem cli: '<version>' in kindgi.config.ts), like ./kindgiw: the pack's node_modules\@kindgi\cli when it is
rem that version, else %LOCALAPPDATA%\kindgi\cli\<version> filled once with npm (from the registry, or
rem from KINDGI_CLI_SOURCE: the CLI's package folder, a tarball, or a folder of tarballs). docs/cli.md.
setlocal EnableExtensions
set "PACK_DIR=%~dp0"
if "%PACK_DIR:~-1%"=="\" set "PACK_DIR=%PACK_DIR:~0,-1%"

where node >nul 2>nul
if errorlevel 1 (
  echo kindgiw: Node.js was not found on PATH: kindgi needs Node.js 20.19 or newer ^(https://nodejs.org^) 1>&2
  exit /b 1
)

set "KINDGIW_VERSION="
for /f "usebackq delims=" %%v in (`node -e "const fs=require('fs'),p=require('path'),d=process.argv[1],j=p.join(d,'kindgi.config.json'),t=p.join(d,'kindgi.config.ts');let v;try{if(fs.existsSync(j))v=JSON.parse(fs.readFileSync(j,'utf8')).cli;else if(fs.existsSync(t)){const m=/^\s*cli\s*:\s*[\x22\x27]([^\x22\x27]*)[\x22\x27]/m.exec(fs.readFileSync(t,'utf8'));v=m&&m[1]}}catch(e){}if(typeof v==='string'&&/^[0-9][0-9A-Za-z.+-]{0,63}$/.test(v))process.stdout.write(v)" "%PACK_DIR%"`) do set "KINDGIW_VERSION=%%v"
if not defined KINDGIW_VERSION (
  echo kindgiw: the pack config pins no CLI version: add "cli": "<version>" to kindgi.config.json, or cli: '<version>' to kindgi.config.ts 1>&2
  exit /b 1
)

set "LOCAL_CLI=%PACK_DIR%\node_modules\@kindgi\cli"
call :installed_version "%LOCAL_CLI%"
if "%KINDGIW_GOT%"=="%KINDGIW_VERSION%" (
  node "%LOCAL_CLI%\dist\main.js" %*
  exit /b %errorlevel%
)

if defined LOCALAPPDATA (set "CACHE_ROOT=%LOCALAPPDATA%\kindgi\cli") else (set "CACHE_ROOT=%USERPROFILE%\.cache\kindgi\cli")
set "CACHE=%CACHE_ROOT%\%KINDGIW_VERSION%"
set "CACHED_CLI=%CACHE%\node_modules\@kindgi\cli"
if exist "%CACHED_CLI%\package.json" goto run_cached

if exist "%CACHE%" rmdir /s /q "%CACHE%"
set "STAGING=%CACHE_ROOT%\.installing-%KINDGIW_VERSION%-%RANDOM%"
mkdir "%STAGING%" 2>nul
set "SPEC=@kindgi/cli@%KINDGIW_VERSION%"
if defined KINDGI_CLI_SOURCE (
  if exist "%KINDGI_CLI_SOURCE%\package.json" (
    set "SPEC=%KINDGI_CLI_SOURCE%"
  ) else if exist "%KINDGI_CLI_SOURCE%\*.tgz" (
    set "SPEC=%KINDGI_CLI_SOURCE%\*.tgz"
  ) else (
    set "SPEC=%KINDGI_CLI_SOURCE%"
  )
)
echo kindgiw: installing kindgi %KINDGIW_VERSION% into %CACHE% 1>&2
if "%SPEC:~-5%"=="*.tgz" (
  set "TARBALLS="
  for %%f in ("%SPEC%") do call set "TARBALLS=%%TARBALLS%% "%%~ff""
  call npm install --prefix "%STAGING%" --no-save --no-package-lock --no-audit --no-fund --loglevel=error %%TARBALLS%% 1>&2
) else (
  call npm install --prefix "%STAGING%" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "%SPEC%" 1>&2
)
if errorlevel 1 (
  rmdir /s /q "%STAGING%"
  echo kindgiw: npm could not install kindgi %KINDGIW_VERSION% ^(see above^) 1>&2
  exit /b 1
)
call :installed_version "%STAGING%\node_modules\@kindgi\cli"
if not "%KINDGIW_GOT%"=="%KINDGIW_VERSION%" (
  rmdir /s /q "%STAGING%"
  echo kindgiw: the pack pins kindgi %KINDGIW_VERSION%, but the install holds "%KINDGIW_GOT%" 1>&2
  exit /b 1
)
move "%STAGING%" "%CACHE%" >nul 2>nul || rmdir /s /q "%STAGING%"

:run_cached
call :installed_version "%CACHED_CLI%"
if not "%KINDGIW_GOT%"=="%KINDGIW_VERSION%" (
  echo kindgiw: the pack pins kindgi %KINDGIW_VERSION%, but %CACHED_CLI% is "%KINDGIW_GOT%": remove %CACHE% and run again 1>&2
  exit /b 1
)
node "%CACHED_CLI%\dist\main.js" %*
exit /b %errorlevel%

:installed_version
set "KINDGIW_GOT="
for /f "usebackq delims=" %%v in (`node -e "try{process.stdout.write(String(require(process.argv[1]+'/package.json').version))}catch(e){}" "%~1"`) do set "KINDGIW_GOT=%%v"
exit /b 0
